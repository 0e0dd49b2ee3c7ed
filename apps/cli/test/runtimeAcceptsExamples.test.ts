/**
 * A plan the compiler emits is one the runtime accepts: every example compiles, and the runtime's
 * own checks (`python3 -m stagecraft_runtime --check`, which starts no device process) accept its
 * plan, however many devices it has.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { pythonInterpreter } from '../src/commands/run.ts';
import { bufferIo } from '../src/io.ts';
import { main } from '../src/main.ts';
import { EXAMPLES, ROOT } from './run.ts';

const hasPython = spawnSync(pythonInterpreter(), ['-c', 'import json'], { stdio: 'ignore' }).status === 0;
const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));
const dir = mkdtempSync(join(tmpdir(), 'stagecraft-accept-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.skipIf(!hasPython)(
  'the runtime accepts the plan of every example',
  () => {
    const plans = files.map((file) => {
      const out = join(dir, file);
      const io = bufferIo();
      expect(main(['compile', join(EXAMPLES, file), '-o', out], io), `${file}: ${io.stderr}`).toBe(0);
      return out;
    });
    const r = spawnSync(pythonInterpreter(), ['-m', 'stagecraft_runtime', '--check', ...plans], {
      cwd: join(ROOT, 'runtime'),
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(plans.map((p) => `ok: ${p}`));
    expect(r.status).toBe(0);
  },
  600_000,
);
