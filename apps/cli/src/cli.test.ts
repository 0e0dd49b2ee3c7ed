import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXAMPLES, type Run, stagecraft, tempFile, tempPath } from '../test/run.ts';

const ERROR_LINE = /^error: \S.*: .+/;
const STACK_LINE = /^\s+at /m;
const DEFAULT_EXAMPLE = join(EXAMPLES, '1f1b-p4-m8.json');

/** A 2-stage synthetic model on 2 devices, programmed by hand like examples/manual-order-p2-m4.json. */
function manualDesign(directives: unknown[], devices = 2) {
  return {
    format: 'stagecraft/design@1',
    name: 'manual',
    model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices },
    directives: [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      { op: 'place', filter: { PP: 0 }, devices: [0] },
      { op: 'place', filter: { PP: 1 }, devices: [1] },
      ...directives,
    ],
  };
}

function scheduleDesign(stages: number, devices: number, schedule: Record<string, unknown>) {
  return {
    format: 'stagecraft/design@1',
    name: 'scheduled',
    model: { kind: 'synthetic', stages, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices },
    directives: [{ op: 'schedule', ...schedule }],
  };
}

/** Exit 1, nothing on stdout, only `error: <path>: <reason>` lines on stderr, one of them at `path`. */
function expectRejected(run: Run, path: string | RegExp): void {
  expect(run.stderr).not.toMatch(STACK_LINE);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line).toMatch(ERROR_LINE);
  const paths = lines.map((l) => l.slice('error: '.length));
  if (typeof path === 'string')
    expect(
      paths.some((p) => p.startsWith(`${path}: `) || p.startsWith(`${path}.`) || p.startsWith(`${path}[`)),
    ).toBe(true);
  else expect(paths.some((p) => path.test(p))).toBe(true);
}

describe.concurrent('stagecraft validate', () => {
  test('accepts the default example and names it', async () => {
    const r = await stagecraft('validate', DEFAULT_EXAMPLE);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ok: 1F1B, p=4, m=8 (1 directive)\n');
  });

  test('a design without a name is called after its file', async () => {
    const { name: _name, ...unnamed } = scheduleDesign(4, 4, { builder: '1f1b', microbatches: 8 });
    const r = await stagecraft('validate', tempFile(unnamed, 'nameless-1f1b.json'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ok: nameless-1f1b (1 directive)\n');
  });

  test('a missing file is "no such file"', async () => {
    const file = tempPath('does-not-exist.json');
    const r = await stagecraft('validate', file);
    expectRejected(r, file);
    expect(r.stderr).toBe(`error: ${file}: no such file\n`);
  });

  test('invalid JSON is one line reported against the file', async () => {
    const file = tempFile('{\n  "format": "stagecraft/design@1",\n  "name": \n}\n');
    const r = await stagecraft('validate', file);
    expectRejected(r, file);
    expect(r.stderr).toMatch(/^error: .*: invalid JSON\b.*\n$/);
  });

  test('an unknown field is named by its path', async () => {
    const design = scheduleDesign(4, 4, { builder: '1f1b', microbatches: 8 });
    const r = await stagecraft(
      'validate',
      tempFile({ ...design, model: { ...design.model, colour: 'blue' } }),
    );
    expectRejected(r, 'model.colour');
    expect(r.stderr).toMatch(/model\.colour: unknown field/);
  });

  test('an unknown builder is named at directives[0].builder', async () => {
    const r = await stagecraft(
      'validate',
      tempFile(scheduleDesign(4, 4, { builder: '2f2b', microbatches: 8 })),
    );
    expectRejected(r, 'directives[0].builder');
    expect(r.stderr).toMatch(/unknown builder "2f2b"/);
  });

  test('stages not divisible by ranks × chunks are rejected at the schedule directive', async () => {
    const r = await stagecraft(
      'validate',
      tempFile(scheduleDesign(6, 4, { builder: '1f1b', microbatches: 8 })),
    );
    expectRejected(r, 'directives[0]');
  });

  test('too few microbatches for DualPipeV are rejected at directives[0].microbatches', async () => {
    const r = await stagecraft(
      'validate',
      tempFile(scheduleDesign(8, 4, { builder: 'dualpipev', microbatches: 4 })),
    );
    expectRejected(r, 'directives[0].microbatches');
  });

  test('a filter naming a tag value no block has is rejected at that filter key', async () => {
    const design = manualDesign([]);
    design.directives[2] = { op: 'place', filter: { PP: 9 }, devices: [1] };
    const r = await stagecraft('validate', tempFile(design));
    expectRejected(r, 'directives[2].filter.PP');
  });

  test('a filter naming a tag no block has at all is rejected at that filter key', async () => {
    const design = manualDesign([]);
    design.directives[2] = { op: 'place', filter: { EP: 0 }, devices: [1] };
    const r = await stagecraft('validate', tempFile(design));
    expectRejected(r, 'directives[2].filter.EP');
  });

  test('an order that contradicts the data dependencies (a cycle) is rejected at the order', async () => {
    const order = {
      op: 'order',
      filters: [[{ PP: 0, MB: 0, PASS: 'B' }], [{ PP: 0, MB: 0, PASS: 'F' }]],
    };
    const r = await stagecraft('validate', tempFile(manualDesign([order])));
    expectRejected(r, 'directives[3]');
  });

  test('an order spanning two device groups is rejected at the order', async () => {
    const order = {
      op: 'order',
      filters: [[{ PP: 0, MB: 0, PASS: 'F' }], [{ PP: 1, MB: 0, PASS: 'F' }]],
    };
    const r = await stagecraft('validate', tempFile(manualDesign([order])));
    expectRejected(r, 'directives[3]');
  });

  test('devices outside the cluster are rejected at the directive that names them', async () => {
    const design = manualDesign([]);
    design.directives[2] = { op: 'place', filter: { PP: 1 }, devices: [5] };
    const r = await stagecraft('validate', tempFile(design));
    expectRejected(r, 'directives[2].devices');
  });

  test('a design over --max-ops is refused with the op limit in the reason', async () => {
    const r = await stagecraft('validate', DEFAULT_EXAMPLE, '--max-ops', '10');
    expectRejected(r, /.+/);
    expect(r.stderr).toMatch(/\bops?\b/i);
  });

  test('every problem of a document gets its own line', async () => {
    const design = { ...scheduleDesign(4, 4, { builder: '1f1b', microbatches: 8 }), extra: 1, name: '' };
    const r = await stagecraft('validate', tempFile(design));
    expectRejected(r, 'extra');
    expect(r.stderr.trimEnd().split('\n').length).toBeGreaterThanOrEqual(2);
  });
});

/** A design of a few hundred bytes that one number makes too large to build. */
const HUGE_LAYERS = {
  format: 'stagecraft/design@1',
  model: { kind: 'transformer', preset: 'llama3-8b', microbatchSize: 1, layers: 1e7, annotate: { PP: 4 } },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [{ op: 'schedule', builder: '1f1b', ranks: 4, microbatches: 8 }],
};

describe.concurrent('a design too large to build', () => {
  const huge = tempFile(HUGE_LAYERS, 'huge-layers.json');
  test.each([
    ['compile', [huge, '-o', tempPath('huge-plan.json')]],
    ['export', [huge, '--format', 'plan']],
    ['compare', [DEFAULT_EXAMPLE, huge]],
    ['calibrate', [huge, '--trace', tempPath('no-trace.json')]],
    ['run', [huge]],
  ])('`%s` refuses it at the field before building it', async (command, args) => {
    const r = await stagecraft(command, ...args);
    expectRejected(r, 'design.model.layers');
    expect(r.stderr).toMatch(/blocks make at least [\d,]+ ops, over the limit of 2,000,000$/m);
  });

  test.each(['validate', 'simulate', 'compare', 'export', 'calibrate'])(
    '`%s` takes its limit from --max-ops',
    async (command) => {
      const rest =
        command === 'export'
          ? ['--format', 'plan']
          : command === 'calibrate'
            ? ['--trace', tempPath('t.json')]
            : [];
      const r = await stagecraft(command, DEFAULT_EXAMPLE, ...rest, '--max-ops', '7');
      expectRejected(r, 'design.model.stages');
      expect(r.stderr).toMatch(
        /^error: design\.model\.stages: 4 blocks make at least 8 ops, over the limit of 7$/m,
      );
    },
  );
});

describe.concurrent('stagecraft simulate', () => {
  test('--json prints exactly one JSON object with the contract fields', async () => {
    const r = await stagecraft('simulate', DEFAULT_EXAMPLE, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().startsWith('{')).toBe(true);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(typeof out.makespanMs).toBe('number');
    expect(typeof out.bubbleRatio).toBe('number');
    expect(Number.isInteger(out.ops)).toBe(true);
    expect(out.ops).toBeGreaterThan(0);
    if ('tokensPerSecond' in out) expect(typeof out.tokensPerSecond).toBe('number');
    const devices = out.devices as Record<string, unknown>[];
    expect(devices.map((d) => d.device)).toEqual([0, 1, 2, 3]);
    for (const d of devices) {
      for (const key of ['busyMs', 'idleMs', 'peakMemoryBytes', 'peakActivationBytes']) {
        expect(typeof d[key], key).toBe('number');
      }
    }
    const timings = out.timings as Record<string, unknown>;
    expect(timings.compileMs).toBeGreaterThanOrEqual(0);
    expect(timings.simulateMs).toBeGreaterThanOrEqual(0);
  });

  test('1F1B on 4 ranks and 8 microbatches takes (m+p−1)(F+B) = 33 ms with bubble 3/11 of the total', async () => {
    const r = await stagecraft('simulate', DEFAULT_EXAMPLE, '--json');
    const out = JSON.parse(r.stdout) as { makespanMs: number; bubbleRatio: number; bubbleOverIdeal: number };
    expect(out.makespanMs).toBeCloseTo(33, 9);
    expect(out.bubbleRatio).toBeCloseTo(3 / 11, 9);
    expect(out.bubbleOverIdeal).toBeCloseTo(3 / 8, 9);
  });

  test('--steps reports ZB-H2 steady at m(F+B) = 24 ms a step beside its 27 ms single step', async () => {
    const r = await stagecraft('simulate', join(EXAMPLES, 'zb-h2-p4-m8.json'), '--json', '--steps', '4');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      makespanMs: number;
      steadyState: { steps: number; steadyStepMs: number };
    };
    expect(out.makespanMs).toBeCloseTo(27, 9);
    expect(out.steadyState.steps).toBe(4);
    expect(out.steadyState.steadyStepMs).toBeCloseTo(24, 9);
    const text = await stagecraft('simulate', join(EXAMPLES, 'zb-h2-p4-m8.json'), '--steps', '3');
    expect(text.stdout).toMatch(/steady step \(3 steps\): +24 ms/);
  });

  test('compare --steps puts ZB-H2 ahead of ZB-H1 in steady state, where one step ties them', async () => {
    const r = await stagecraft(
      'compare',
      join(EXAMPLES, 'zb-h1-p4-m8.json'),
      join(EXAMPLES, 'zb-h2-p4-m8.json'),
      '--json',
      '--steps',
      '3',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { designs: { stepMs: number; steadyStepMs: number }[] };
    expect(out.designs.map((d) => d.stepMs)).toEqual([27, 27]);
    expect(out.designs[0]!.steadyStepMs).toBeCloseTo(27, 9);
    expect(out.designs[1]!.steadyStepMs).toBeCloseTo(24, 9);
  });

  test('--steps outside 2..64 is a usage error naming the option', async () => {
    const r = await stagecraft('simulate', DEFAULT_EXAMPLE, '--steps', '1');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('error: --steps: must be from 2 to 64, got 1');
  });

  test('the readable summary names both bubble conventions and every device', async () => {
    const r = await stagecraft('simulate', DEFAULT_EXAMPLE, '--width', '80');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1F1B, p=4, m=8/);
    expect(r.stdout).toMatch(/makespan: +33 ms/);
    expect(r.stdout).toMatch(/bubble \(of total\): +27\.27%/);
    expect(r.stdout).toMatch(/bubble \(of ideal, Megatron\): +37\.50%/);
    expect(r.stdout).toMatch(/^device +busy +idle +peak memory +peak activations$/m);
    for (const d of [0, 1, 2, 3]) expect(r.stdout).toMatch(new RegExp(`^${d} +24 ms +9 ms`, 'm'));
  });

  test('a transformer design prints its layers per stage and tokens/s', async () => {
    const r = await stagecraft('simulate', join(EXAMPLES, 'llama3-8b-dgx-h100-pp4-1f1b.json'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^layers per stage: +0: E t0–8 \(9\) \| 1: t9–17 \(9\) \| 2: t18–26 \(9\) \| 3: t27–31 L \(5\)$/m,
    );
    expect(r.stdout).toMatch(/^tokens\/s: +[\d,]+$/m);
  });

  test('an unknown model preset is an error at model.preset listing the known ones', async () => {
    const r = await stagecraft(
      'validate',
      tempFile({
        format: 'stagecraft/design@1',
        name: 'x',
        model: { kind: 'transformer', preset: 'llama3-9b' },
        cluster: { preset: 'dgx-h100', nodes: 1 },
        directives: [],
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: model\.preset: unknown model preset "llama3-9b" \(known: llama3-8b, /);
  });

  test('a bad design is rejected the same way as by validate', async () => {
    const r = await stagecraft(
      'simulate',
      tempFile(scheduleDesign(4, 4, { builder: '2f2b', microbatches: 8 })),
      '--json',
    );
    expectRejected(r, 'directives[0].builder');
  });
});

describe.concurrent('stagecraft compile', () => {
  test('-o writes a stagecraft/plan@2 document with one entry per device', async () => {
    const out = tempPath('plan.json');
    const r = await stagecraft('compile', DEFAULT_EXAMPLE, '-o', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = JSON.parse(readFileSync(out, 'utf8')) as { format: string; devices: { device: number }[] };
    expect(plan.format).toBe('stagecraft/plan@2');
    expect(plan.devices.map((d) => d.device)).toEqual([0, 1, 2, 3]);
    expect(r.stdout).toMatch(/^wrote .*plan\.json: \d+ ops on 4 devices/);
  });

  test('-o on a transformer design also prints its layers per stage', async () => {
    const r = await stagecraft(
      'compile',
      join(EXAMPLES, 'llama3-8b-dgx-h100-pp4-1f1b.json'),
      '-o',
      tempPath('l.json'),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nlayers per stage: 0: E t0–8 \(9\) \| /);
  });

  test('without -o the plan goes to stdout', async () => {
    const r = await stagecraft('compile', join(EXAMPLES, 'manual-order-p2-m4.json'));
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { format: string }).format).toBe('stagecraft/plan@2');
  });

  test('an unwritable output path is an error naming it', async () => {
    const out = tempPath('missing-dir/plan.json');
    const r = await stagecraft('compile', DEFAULT_EXAMPLE, '-o', out);
    expectRejected(r, out);
  });
});

describe.concurrent('stagecraft command line', () => {
  test('--help lists every command', async () => {
    const r = await stagecraft('--help');
    expect(r.code).toBe(0);
    for (const c of ['validate', 'compile', 'simulate'])
      expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  test('<command> --help shows that command with an example', async () => {
    const r = await stagecraft('simulate', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: stagecraft simulate <design>/);
    expect(r.stdout).toMatch(/stagecraft simulate examples\/1f1b-p4-m8\.json --json/);
  });

  test('--version prints the package version', async () => {
    const r = await stagecraft('--version');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^stagecraft \d+\.\d+\.\d+\n$/);
  });

  test('a usage error exits 1 with a hint and no stack', async () => {
    const r = await stagecraft('frobnicate', DEFAULT_EXAMPLE);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: unknown command "frobnicate"\nrun "stagecraft --help" for usage\n');
  });
});
