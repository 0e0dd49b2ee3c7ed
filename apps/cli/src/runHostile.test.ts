/**
 * `stagecraft run` given what it cannot or should not run: each case is refused before a device
 * starts, or ends with one line, within a deadline (a run that hangs fails here). The table in
 * docs/reliability.md ("Hostile input to run") lists the same cases with their times.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonInterpreter } from '@stagecraft/launch';
import { describe, expect, test } from 'vitest';
import { BIN, EXAMPLES, ROOT, stagecraftWithEnv, TIMED_OUT, tempFile, tempPath } from '../test/run.ts';

// Generous: on a shared 2-core machine starting Python and torch alone has taken 30 s.
const DEADLINE_MS = 180_000;
const unix = process.platform !== 'win32';
const hasTorch =
  spawnSync(pythonInterpreter(), ['-c', 'import torch.distributed'], { stdio: 'ignore' }).status === 0;

/** The fields of a plan these cases edit. */
interface EditablePlan {
  batch: Record<string, number>;
  model: { blocks: Record<string, unknown>[] };
}

function plan(name: string, edit: (p: EditablePlan) => void): string {
  const p = JSON.parse(readFileSync(join(ROOT, 'runtime/tests/plans', `${name}.json`), 'utf8'));
  edit(p);
  return tempFile(p, `${name}-edited-${Math.random().toString(36).slice(2)}.json`);
}

const P64 = tempFile({
  format: 'stagecraft/design@2',
  name: 'GPipe p=64',
  model: { kind: 'synthetic', stages: 64, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 64 },
  directives: [{ op: 'schedule', builder: 'gpipe', microbatches: 4 }],
});

/** [case, argv, environment, first line of stderr (a pattern)]; each exits 1 with nothing on stdout. */
/**
 * The figures below are float32's (docs/reliability.md's table): float64, the run's default since
 * its verdict, doubles every tensor's bytes and does not overflow at a loss scale of 1e39.
 */
const FLOAT32 = ['--dtype', 'float32'];

const REFUSED: [string, () => string[], Record<string, string>, RegExp][] = [
  [
    'a 64-device design on a machine with fewer CPUs',
    () => ['run', P64],
    { STAGECRAFT_RUNTIME_OVERSUBSCRIBE: '' },
    /^error: the plan runs on 64 devices, one process each, and this machine has \d+ CPUs: run a design with fewer devices, or pass --oversubscribe to start them all anyway$/,
  ],
  [
    '--hidden 65536',
    () => ['run', join(EXAMPLES, '1f1b-p4-m8.json'), '--hidden', '65536', ...FLOAT32],
    {},
    /^error: the 4 devices would hold 1\.02e\+03 GiB of tensors together \(device \d the most: 256 GiB\) with --hidden 65536 .*more than the [\d.]+ GiB of memory available/,
  ],
  [
    'batch.microbatchSize 3e7',
    () => ['run', plan('1f1b-p4-m8', (p) => (p.batch.microbatchSize = 3e7)), ...FLOAT32],
    {},
    /^error: the 4 devices would hold 916 GiB of tensors together .* microbatchSize 30000000, more than/,
  ],
  [
    'experts 1e7',
    () => ['run', plan('pp2-dp2-ep2', (p) => (p.model.blocks[2]!.experts = 1e7)), ...FLOAT32],
    {},
    /^error: the 4 devices would hold 381 GiB of tensors together/,
  ],
  [
    'batch.microbatches 1e12',
    () => ['run', plan('1f1b-p4-m8', (p) => (p.batch.microbatches = 1e12))],
    {},
    /^error: batch\.microbatches: 1000000000000, but the plan's forwards run microbatches 0 to 7$/,
  ],
  [
    'batch.replicas 1e9',
    () => ['run', plan('1f1b-p4-m8', (p) => (p.batch.replicas = 1e9))],
    {},
    /^error: batch\.replicas: 1000000000 data-parallel replicas, but the largest group has 1 devices$/,
  ],
];

describe
  .runIf(hasTorch && unix)
  .concurrent('run refuses what this machine cannot hold, before any device starts', () => {
    test.each(REFUSED)(
      '%s',
      async (_name, argv, env, line) => {
        const r = await stagecraftWithEnv(env, DEADLINE_MS, ...argv(), '--steps', '1');
        expect(r.code, 'the run hung').not.toBe(TIMED_OUT);
        expect(r.stderr.split('\n')[0]).toMatch(line);
        expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
      },
      DEADLINE_MS,
    );
  });

describe.runIf(unix).concurrent('run checks --trace before launching', () => {
  const folder = tempPath('trace-folder');
  mkdirSync(folder);
  test.each([
    ['into a missing folder', tempPath('missing/measured.trace.json'), 'no such directory'],
    ['into a folder', folder, 'is a directory'],
    ['into /dev/full', '/dev/full', 'is a socket or a device, not a regular file'],
  ])(
    '%s',
    async (_name, trace, reason) => {
      // An interpreter that cannot start proves nothing was launched: the check comes first.
      const r = await stagecraftWithEnv(
        { STAGECRAFT_PYTHON: '/nonexistent/python3' },
        DEADLINE_MS,
        'run',
        join(EXAMPLES, '1f1b-p4-m8.json'),
        '--trace',
        trace,
      );
      expect(r.stderr).toBe(`error: ${trace}: ${reason}\n`);
      expect(r.code).toBe(1);
    },
    DEADLINE_MS,
  );
});

describe.runIf(hasTorch && unix)('run ends with one line', () => {
  test(
    'a loss that becomes Infinity is reported as divergence',
    async () => {
      // A failed run keeps its folder: here, not in the machine's temp folder.
      const runs = tempPath('diverged-runs');
      mkdirSync(runs);
      const r = await stagecraftWithEnv(
        { TMPDIR: runs },
        DEADLINE_MS,
        'run',
        plan('1f1b-p4-m8', (p) => (p.batch.lossScale = 1e39)),
        ...FLOAT32,
        '--steps',
        '1',
        '--json',
      );
      expect(r.code, 'the run hung').not.toBe(TIMED_OUT);
      expect(r.stderr).toMatch(
        /^error: the run diverged: its loss is inf at step 0 \(batch\.lossScale 1e\+39\) \(the run's files are kept in \S+\)\n$/,
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    },
    DEADLINE_MS,
  );

  test(
    'Ctrl-C says interrupted, exits 130 and leaves no device running',
    async () => {
      const child = spawn(
        process.execPath,
        [BIN, 'run', join(EXAMPLES, '1f1b-p4-m8.json'), '--steps', '1000'],
        {
          cwd: ROOT,
          env: { ...process.env, STAGECRAFT_DEBUG: '', STAGECRAFT_RUNTIME_OVERSUBSCRIBE: '1' },
          // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      // The devices are running once the group has more than node and the launcher in it.
      const deadline = Date.now() + 60_000;
      while (groupSize(child.pid!) < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(groupSize(child.pid!), 'the run never started its devices').toBeGreaterThanOrEqual(6);
      process.kill(-child.pid!, 'SIGINT');
      const code = await closed;
      expect(stderr).toBe('interrupted\n');
      expect(stdout).toBe('');
      expect(code).toBe(130);
      expect(groupSize(child.pid!)).toBe(0);
    },
    DEADLINE_MS,
  );
});

/** Live processes in process group `pgid`. */
function groupSize(pgid: number): number {
  const out = spawnSync('pgrep', ['-g', String(pgid)], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter(Boolean).length;
}
