/** `stagecraft export`, `import` and `compare`, run as a user's shell runs them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXAMPLES, ROOT, stagecraft, tempFile, tempPath } from '../test/run.ts';

const TORCH_FIXTURES = join(ROOT, 'test', 'fixtures', 'torch');
const DUALPIPEV_CSV = join(TORCH_FIXTURES, 'dualpipev_4rank_10mb.csv');
const ZB1P_CSV = join(TORCH_FIXTURES, 'zb1p_2rank_2stagep_compute.csv');
const STACK_LINE = /^\s+at /m;

describe.concurrent('stagecraft export', () => {
  test('torch-csv of the DualPipeV example on stdout is torch’s dualpipev_4rank_10mb.csv', async () => {
    const r = await stagecraft('export', join(EXAMPLES, 'dualpipev-p4-m10.json'), '--format', 'torch-csv');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(DUALPIPEV_CSV, 'utf8'));
  });

  test('-o writes the file and says so; the trace is one JSON object for Perfetto', async () => {
    const out = tempPath('zbv.trace.json');
    const r = await stagecraft(
      'export',
      join(EXAMPLES, 'zbv-p4-m8.json'),
      '--format',
      'chrome-trace',
      '-o',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*zbv\.trace\.json \(chrome-trace, [\d,]+ bytes\)\n$/);
    const trace = JSON.parse(readFileSync(out, 'utf8')) as {
      traceEvents: unknown[];
      displayTimeUnit: string;
    };
    expect(trace.displayTimeUnit).toBe('ms');
    expect(trace.traceEvents.length).toBeGreaterThan(100);
  });

  test('a design torch cannot run is refused with the reason and exit 1', async () => {
    const r = await stagecraft('export', join(EXAMPLES, 'dualpipe-p4-m8.json'), '--format', 'torch-csv');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).toMatch(
      /^error: directives\[0\]: torch schedules split the step along one microbatch dimension/,
    );
  });

  test('an unknown format and a torch option on another format are usage errors', async () => {
    const a = await stagecraft('export', join(EXAMPLES, '1f1b-p4-m8.json'), '--format', 'onnx');
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(
      /^error: --format: expected one of piper, torch-csv, chrome-trace, plan, got "onnx"\n/,
    );
    const b = await stagecraft(
      'export',
      join(EXAMPLES, '1f1b-p4-m8.json'),
      '--format',
      'plan',
      '--dialect',
      'legacy',
    );
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/--dialect apply to --format torch-csv only/);
  });
});

describe.concurrent('stagecraft import', () => {
  test('a legacy torch CSV imports to a design that exports back to the same file', async () => {
    const design = tempPath('zb1p.json');
    const r = await stagecraft(
      'import',
      ZB1P_CSV,
      '--format',
      'torch-csv',
      '--dialect',
      'legacy',
      '-o',
      design,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`wrote ${design}: 7 directives (2 orders, one per rank)\n`);
    const back = await stagecraft('export', design, '--format', 'torch-csv', '--dialect', 'legacy');
    expect(back.stdout).toBe(readFileSync(ZB1P_CSV, 'utf8'));
  });

  test('--model runs the schedule on a given design’s model and cluster', async () => {
    const r = await stagecraft(
      'import',
      DUALPIPEV_CSV,
      '--format',
      'torch-csv',
      '--model',
      join(EXAMPLES, 'dualpipev-p4-m10.json'),
    );
    expect(r.code).toBe(0);
    const design = JSON.parse(r.stdout) as { model: { costs: { FandB: number } }; cluster: unknown };
    expect(design.model.costs.FandB).toBe(1.25);
    const sim = await stagecraft('simulate', tempFile(design), '--json');
    expect((JSON.parse(sim.stdout) as { makespanMs: number }).makespanMs).toBe(29.5);
  });

  test('a bad cell is reported against the file with its row and cell', async () => {
    const csv = tempFile('0F0,0F1\n1F0,1Q1\n', 'bad.csv');
    const r = await stagecraft('import', csv, '--format', 'torch-csv');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: ${csv.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: row 2, cell 2: unknown action type "Q"`,
      ),
    );
  });

  test('PyTorch’s Schedule1F1B(2, 2) order is refused at rank 1’s backward of microbatch 0, one line, no stack', async () => {
    const csv = join(TORCH_FIXTURES, 'schedule1f1b_2rank_2mb_upstream_order.csv');
    const r = await stagecraft('import', csv, '--format', 'torch-csv');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${csv}: row 2, cell 2: stage 1 B of microbatch 0 runs on rank 1 before its forward (F), which rank 1 never runs\n`,
    );
  });

  test('a Piper program with an unknown op is reported at its directive index', async () => {
    const program = tempFile(
      [{ op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 }, { op: 'pipeline' }],
      'bad.piper.json',
    );
    const r = await stagecraft('import', program, '--format', 'piper');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/: directives\[1\]\.op: unknown Piper op "pipeline"/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  test('a Piper export re-imports with --model to the same simulated step', async () => {
    const example = join(EXAMPLES, 'zb-h1-p4-m8.json');
    const program = tempPath('zbh1.piper.json');
    expect((await stagecraft('export', example, '--format', 'piper', '-o', program)).code).toBe(0);
    const imported = await stagecraft('import', program, '--format', 'piper', '--model', example);
    const a = await stagecraft('simulate', example, '--json');
    const b = await stagecraft('simulate', tempFile(JSON.parse(imported.stdout)), '--json');
    const metrics = (s: string) => {
      const { name: _n, timings: _t, ...m } = JSON.parse(s) as Record<string, unknown>;
      return m;
    };
    expect(metrics(b.stdout)).toEqual(metrics(a.stdout));
  });
});

describe.concurrent('stagecraft compare', () => {
  test('prints the schedules side by side with both bubble conventions and memory per device', async () => {
    const r = await stagecraft(
      'compare',
      join(EXAMPLES, '1f1b-p4-m8.json'),
      join(EXAMPLES, 'zb-h1-p4-m8.json'),
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^design\s+step\s+bubble \(of total\)\s+bubble \(of ideal\)\s+exposed comm \/ GPU\s+peak memory\s+tokens\/s$/,
    );
    expect(lines[1]).toMatch(/^1F1B, p=4, m=8\s+33 ms\s+27\.27%\s+37\.50%\s+0 ms/);
    expect(lines[2]).toMatch(/^ZB-H1, p=4, m=8\s+27 ms\s+11\.11%\s+12\.50%/);
    expect(r.stdout).toMatch(/peak memory per device\s+dev 0\s+dev 1\s+dev 2\s+dev 3/);
  });

  test('--json prints one object with a row per design', async () => {
    const r = await stagecraft(
      'compare',
      join(EXAMPLES, 'gpipe-p4-m8.json'),
      join(EXAMPLES, 'zbv-p4-m8.json'),
      '--json',
    );
    const out = JSON.parse(r.stdout) as {
      designs: { file: string; stepMs: number; peakMemoryBytes: unknown[] }[];
    };
    expect(out.designs.map((d) => d.stepMs)).toEqual([33, 25.5]);
    expect(out.designs[0]!.peakMemoryBytes).toHaveLength(4);
  });

  test('a design that does not load is an error naming its file', async () => {
    const r = await stagecraft('compare', join(EXAMPLES, 'gpipe-p4-m8.json'), tempPath('missing.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*missing\.json: no such file\n$/);
  });

  test('--help lists export, import and compare', async () => {
    const r = await stagecraft('--help');
    for (const c of ['export <design> --format', 'import <file> --format', 'compare <design> <design>'])
      expect(r.stdout).toContain(c);
  });
});
