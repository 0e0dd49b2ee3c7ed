/**
 * A plan the compiler emits is one the runtime accepts: every example compiles, and the runtime's
 * own checks (`python3 -m stagecraft_runtime --check`, which starts no device process) accept its
 * plan, however many devices it has. Every example this machine can run then trains like one
 * device, by the runtime's verdict in float64.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonInterpreter } from '@stagecraft/launch';
import { afterAll, expect, test } from 'vitest';
import { EXAMPLES, ROOT } from '../test/run.ts';
import { bufferIo } from './io.ts';
import { main } from './main.ts';

const python = pythonInterpreter();
const hasPython = spawnSync(python, ['-c', 'import json'], { stdio: 'ignore' }).status === 0;
const hasTorch = spawnSync(python, ['-c', 'import torch.distributed'], { stdio: 'ignore' }).status === 0;
const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
const dir = mkdtempSync(join(tmpdir(), 'stagecraft-accept-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Processes a run may start here: one per CPU, or 4, the world the runtime's own tests already run
 * on machines with fewer CPUs (runtime/tests/test_plans_match_reference.py).
 */
const RUNNABLE_WORLD = Math.max(availableParallelism(), 4);
/** A plan file above this many bytes has thousands of devices: no need to read it to know. */
const SMALL_PLAN_BYTES = 4 * 1024 * 1024;

const compiled: string[] = [];

function runtime(args: string[]) {
  return spawnSync(python, ['-m', 'stagecraft_runtime', ...args], {
    cwd: join(ROOT, 'runtime'),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Processes a run of the plan starts: up to its highest device in a group (runtime plan.py). */
function worldOf(path: string): number {
  if (statSync(path).size > SMALL_PLAN_BYTES) return Number.POSITIVE_INFINITY;
  const plan = JSON.parse(readFileSync(path, 'utf8')) as {
    devices: { device: number; group?: number; replicas?: number[] }[];
  };
  let n = 1;
  for (const d of plan.devices)
    if ((d.group ?? -1) >= 0) n = Math.max(n, d.device + 1, ...(d.replicas ?? []).map((r) => r + 1));
  return n;
}

test.skipIf(!hasPython)(
  'the runtime accepts the plan of every example',
  () => {
    for (const file of files) {
      const out = join(dir, file);
      const io = bufferIo();
      expect(main(['compile', join(EXAMPLES, file), '-o', out], io), `${file}: ${io.stderr}`).toBe(0);
      compiled.push(out);
    }
    const r = runtime(['--check', ...compiled]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(compiled.map((p) => `ok: ${p}`));
    expect(r.status).toBe(0);
  },
  600_000,
);

test.skipIf(!hasTorch)(
  'every example this machine can run trains like one device',
  () => {
    const runnable = compiled.filter((p) => worldOf(p) <= RUNNABLE_WORLD);
    expect(runnable.length).toBeGreaterThan(10);
    const r = runtime(['--json', '--steps', '2', '--dtype', 'float64', '--oversubscribe', ...runnable]);
    expect(r.stderr).toBe('');
    const results = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { equal: boolean; maxRelDiff: number; worst: unknown[] });
    expect(results).toHaveLength(runnable.length);
    results.forEach((x, i) => {
      expect({ plan: runnable[i], equal: x.equal, worst: x.worst }).toEqual({
        plan: runnable[i],
        equal: true,
        worst: [],
      });
    });
    expect(r.status).toBe(0);
  },
  600_000,
);
