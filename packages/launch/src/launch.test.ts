/**
 * The launcher `stagecraft run` and the benches share: what it refuses before starting anything
 * (an output it could not write), what it makes of the runtime's answer, and that a runtime
 * stuck past its limit is stopped with nothing left behind.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '@stagecraft/ir';
import { afterEach, describe, expect, test } from 'vitest';
import {
  checkOutputFile,
  launchRuntime,
  pythonInterpreter,
  RUNTIME_DIR,
  RuntimeResultSchema,
} from './index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stagecraft-launch-test-'));
const unix = process.platform !== 'win32';
const hasTorch =
  spawnSync(pythonInterpreter(), ['-c', 'import torch.distributed'], { stdio: 'ignore' }).status === 0;
const PLAN = JSON.parse(readFileSync(join(RUNTIME_DIR, 'tests/plans/1f1b-p4-m8.json'), 'utf8')) as Plan;

describe('an output file checked before a run', () => {
  test('a new file in an existing folder, or an existing file, can be written', () => {
    expect(checkOutputFile(join(scratch, 'new.trace.json'))).toBeUndefined();
    writeFileSync(join(scratch, 'old.trace.json'), '{}');
    expect(checkOutputFile(join(scratch, 'old.trace.json'))).toBeUndefined();
  });

  test('a missing folder, a folder, a path through a file and a device are refused with the reason', () => {
    expect(checkOutputFile(join(scratch, 'missing', 'x.json'))).toBe('no such directory');
    mkdirSync(join(scratch, 'folder.json'));
    expect(checkOutputFile(join(scratch, 'folder.json'))).toBe('is a directory');
    writeFileSync(join(scratch, 'file'), '');
    expect(checkOutputFile(join(scratch, 'file', 'x.json'))).toBe('a part of the path is not a directory');
    if (unix) expect(checkOutputFile('/dev/full')).toBe('is a socket or a device, not a regular file');
  });
});

describe("the runtime's answer", () => {
  test('a result missing a field, or with a loss that is not a number, does not read', () => {
    const ok = {
      devices: 4,
      steps: 1,
      loss: [1],
      referenceLoss: [1],
      maxAbsDiff: 0,
      maxRelDiff: 0,
      tolerance: 1e-9,
      equal: false,
      worst: [{ device: 1, tensor: 'gradient of blocks [0]', step: 0, difference: 0.5, absolute: 0.1 }],
      stepMs: [3],
      backend: 'gloo',
      memory: [{ device: 0, params: 1, grads: 1, optimizer: 2, paramsPeak: 1 }],
      later: 'fields this reader does not know pass through',
    };
    expect(RuntimeResultSchema.parse(ok).later).toBe(ok.later);
    expect(RuntimeResultSchema.safeParse({ ...ok, loss: ['Infinity'] }).success).toBe(false);
    const { memory: _gone, ...noMemory } = ok;
    expect(RuntimeResultSchema.safeParse(noMemory).success).toBe(false);
    // A result without its verdict cannot be read as "equal".
    const { equal: _verdict, ...noVerdict } = ok;
    expect(RuntimeResultSchema.safeParse(noVerdict).success).toBe(false);
  });
});

describe.runIf(hasTorch && unix)('a runtime past its limit', () => {
  const saved = process.env.TMPDIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });

  test('is stopped, says so, and leaves no folder and no process behind', () => {
    const tmp = mkdtempSync(join(scratch, 'tmp-'));
    process.env.TMPDIR = tmp;
    const start = Date.now();
    const outcome = launchRuntime(PLAN, {
      steps: 1000,
      dtype: 'float32',
      backend: 'gloo',
      oversubscribe: true,
      // Long enough for the devices to be running under load (1,000 steps take minutes).
      timeoutMs: 25_000,
    });
    expect(outcome).toEqual({ kind: 'timed-out', limitMs: 25_000 });
    expect(Date.now() - start).toBeLessThan(45_000);
    // The launcher stops its devices and removes its folder on SIGTERM before it exits.
    expect(readdirSync(tmp)).toEqual([]);
    const left = spawnSync('pgrep', ['-f', tmp], { encoding: 'utf8' }).stdout.trim();
    expect(left).toBe('');
  }, 90_000);
});
