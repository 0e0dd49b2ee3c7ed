import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonInterpreter } from '@stagecraft/launch';
import { afterEach, describe, expect, test } from 'vitest';
import { EXAMPLES, ROOT, stagecraft, tempFile, tempPath } from '../../test/run.ts';

const PLAN = join(ROOT, 'runtime/tests/plans/1f1b-p4-m8.json');
const hasTorch =
  spawnSync(pythonInterpreter(), ['-c', 'import torch.distributed'], { stdio: 'ignore' }).status === 0;

interface Instr {
  op: string;
  id: string;
}

describe('stagecraft run', () => {
  const saved = process.env.STAGECRAFT_PYTHON;
  afterEach(() => {
    if (saved === undefined) delete process.env.STAGECRAFT_PYTHON;
    else process.env.STAGECRAFT_PYTHON = saved;
  });

  test('a plan edited to swap two RECVs is refused before any process starts, naming both', async () => {
    const plan = JSON.parse(readFileSync(PLAN, 'utf8'));
    const list: Instr[] = plan.devices[1].streams[1].instructions;
    const [a, b] = list.flatMap((i, k) => (i.op === 'RECV' ? [k] : [])).slice(0, 2) as [number, number];
    [list[a], list[b]] = [list[b]!, list[a]!];
    // An interpreter that cannot start proves nothing was launched: validation comes first.
    process.env.STAGECRAFT_PYTHON = '/nonexistent/python3';
    const r = await stagecraft('run', tempFile(plan), '--json');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`devices[1].streams[1].instructions[${a}]: ${list[a]!.id}`);
    expect(r.stderr).toContain(`devices[1].streams[1].instructions[${b}]: ${list[b]!.id}`);
    expect(r.stderr).not.toContain('nonexistent');
  });

  test('without a Python that has torch the run says what to install instead of failing obscurely', async () => {
    process.env.STAGECRAFT_PYTHON = '/nonexistent/python3';
    const r = await stagecraft('run', PLAN);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: \/nonexistent\/python3: cannot start the Python runtime .*python3-torch/m,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test.skipIf(!hasTorch)(
    'a measured run of wider blocks is read back by calibrate: every span matches its plan',
    async () => {
      const design = tempFile({
        format: 'stagecraft/design@2',
        name: '1F1B p=2 m=4',
        model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
        cluster: { kind: 'ideal', devices: 2 },
        directives: [{ op: 'schedule', builder: '1f1b', microbatches: 4 }],
      });
      const trace = tempPath('wide.trace.json');
      const r = await stagecraft(
        'run',
        design,
        '--hidden',
        '128',
        '--steps',
        '2',
        '--json',
        '--trace',
        trace,
      );
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout.trim().split('\n').pop()!).equal).toBe(true);
      const c = await stagecraft('calibrate', design, '--trace', trace, '--json');
      expect(c.stderr).toBe('');
      const report = JSON.parse(c.stdout);
      expect(report.unmatched).toEqual([]);
      expect(report.missing).toBe(0);
      expect(report.fits.blocks).toHaveLength(2);
      expect(report.after.measuredStepMs).toBeGreaterThan(0);
    },
    120_000,
  );

  test.skipIf(!hasTorch)(
    'a plan whose header doubles the loss scale runs, and the verdict is exit 1 naming the worst tensors',
    async () => {
      const plan = JSON.parse(readFileSync(join(ROOT, 'runtime/tests/plans/pp2-dp2.json'), 'utf8'));
      plan.batch.lossScale *= 2;
      const r = await stagecraft('run', tempFile(plan), '--json', '--steps', '1');
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.equal).toBe(false);
      expect(out.tolerance).toBe(1e-9);
      expect(out.maxRelDiff).toBeGreaterThan(0.5);
      expect(r.stderr).toMatch(/^error: the run differs from the single-device reference beyond 1e-9/);
      expect(r.stderr).toMatch(
        /^ {2}device \d, gradient of block \d weight\d, step 0: relative difference 1\.00e\+0$/m,
      );
      expect(r.stderr).not.toMatch(/Traceback/);
    },
    120_000,
  );

  test('bad --steps, --dtype and --hidden values are usage errors', async () => {
    expect((await stagecraft('run', PLAN, '--hidden', '0')).stderr).toMatch(/--hidden: expected an integer/);
    expect((await stagecraft('run', PLAN, '--steps', '0')).stderr).toMatch(/--steps: expected an integer/);
    expect((await stagecraft('run', PLAN, '--dtype', 'half')).stderr).toMatch(
      /--dtype: expected float32 or float64/,
    );
    expect((await stagecraft('run', PLAN, '--backend', 'mpi')).stderr).toMatch(
      /--backend: expected auto, gloo or nccl/,
    );
  });

  test.skipIf(!hasTorch)('--backend nccl on a machine without CUDA is refused with the reason', async () => {
    const r = await stagecraft('run', PLAN, '--backend', 'nccl');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: --backend nccl: CUDA is not available/m);
    expect(r.stderr).not.toMatch(/Traceback/);
  });

  test.skipIf(!hasTorch)(
    'a design trains on PyTorch exactly as one device does, and its measured trace has the plan’s ids',
    async () => {
      const trace = tempPath('measured.trace.json');
      const r = await stagecraft(
        'run',
        join(EXAMPLES, 'zb-h1-p4-m8.json'),
        '--json',
        '--steps',
        '2',
        '--trace',
        trace,
      );
      expect(r.stderr).toBe('');
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(Object.keys(out)).toEqual([
        'devices',
        'steps',
        'loss',
        'referenceLoss',
        'maxAbsDiff',
        'maxRelDiff',
        'tolerance',
        'equal',
        'worst',
        'stepMs',
        'predictedStepMs',
        'backend',
        'memory',
      ]);
      expect(out.backend).toBe('gloo');
      expect(out.memory.map((m: { device: number }) => m.device)).toEqual([0, 1, 2, 3]);
      expect(out.memory[0].params).toBeGreaterThan(0);
      expect(out.devices).toBe(4);
      expect(out.loss).toHaveLength(2);
      expect(out.maxRelDiff).toBeLessThanOrEqual(1e-12);
      expect(out.equal).toBe(true);
      expect(out.worst).toEqual([]);
      expect(out.predictedStepMs).toBeGreaterThan(0);
      const events = JSON.parse(readFileSync(trace, 'utf8')).traceEvents as {
        ph: string;
        args?: { id?: string };
      }[];
      const ids = new Set(events.filter((e) => e.ph === 'X').map((e) => e.args?.id));
      expect(ids).toContain('BW.b3.mb7');
      expect(ids).toContain('UPD.d0');
    },
    120_000,
  );

  test.skipIf(!hasTorch)(
    'a design on a dp2 × tp2 mesh trains as one device does, every member running its tp all-reduce',
    async () => {
      const trace = tempPath('mesh.trace.json');
      const design = join(ROOT, 'runtime/tests/designs/mesh-dp2-tp2.json');
      const r = await stagecraft('run', design, '--json', '--steps', '2', '--trace', trace);
      expect(r.stderr).toBe('');
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
      expect(out.devices).toBe(4);
      expect(out.maxRelDiff).toBeLessThanOrEqual(1e-5);
      const events = JSON.parse(readFileSync(trace, 'utf8')).traceEvents as {
        ph: string;
        pid: number;
        args?: { id?: string };
      }[];
      const reductions = events.filter((e) => e.ph === 'X' && e.args?.id === 'ALL_REDUCE.tp.F.b0.mb0');
      expect(new Set(reductions.map((e) => e.pid)).size).toBe(4);
    },
    120_000,
  );
});
