/**
 * An export compiles its design once. Every compile goes through the driver's `compile` or
 * `compileIncremental` and every simulation through `simulate`, whatever module calls them (the
 * Piper format's own proof compile included), so counting their calls counts the work.
 */
import type { Design } from '@stagecraft/ir';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { compareDesigns, exportDesign, exportRun, runDesign } from './index.ts';

const calls = vi.hoisted(() => ({ compiled: [] as Design[], simulated: 0 }));

vi.mock('../../passes/src/compile/compile.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../passes/src/compile/compile.ts')>();
  return {
    ...actual,
    compile: (...args: Parameters<typeof actual.compile>) => {
      calls.compiled.push(args[0]);
      return actual.compile(...args);
    },
  };
});
vi.mock('../../passes/src/compile/incremental.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../passes/src/compile/incremental.ts')>();
  return {
    ...actual,
    compileIncremental: (...args: Parameters<typeof actual.compileIncremental>) => {
      calls.compiled.push(args[0]);
      return actual.compileIncremental(...args);
    },
  };
});
vi.mock('../../sim/src/simulate.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../sim/src/simulate.ts')>();
  return {
    ...actual,
    simulate: (...args: Parameters<typeof actual.simulate>) => {
      calls.simulated++;
      return actual.simulate(...args);
    },
  };
});

const design: Design = {
  format: 'stagecraft/design@1',
  name: '1f1b p4 m8',
  model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 1024 },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [{ op: 'schedule', builder: '1f1b', microbatches: 8 }],
};

beforeEach(() => {
  calls.compiled.length = 0;
  calls.simulated = 0;
});

describe('work an export does', () => {
  test.each([
    ['plan', {}, 0],
    ['torch-csv', {}, 0],
    ['torch-csv', { torchFormat: 'compute_comms' }, 1],
    ['chrome-trace', {}, 1],
  ] as const)(
    'a %s %j export compiles the design once and simulates it %i times',
    (format, options, sims) => {
      const r = exportDesign(design, format, options);
      expect(r.ok).toBe(true);
      expect(calls.compiled).toEqual([design]);
      expect(calls.simulated).toBe(sims);
    },
  );

  test("a piper export compiles the design once, then the Piper program once to prove it gives the design's plan", () => {
    const r = exportDesign(design, 'piper');
    expect(r.ok).toBe(true);
    expect(calls.compiled).toHaveLength(2);
    expect(calls.compiled[0]).toBe(design);
    expect(calls.compiled[1]!.directives.map((d) => d.op)).not.toContain('schedule');
    expect(calls.simulated).toBe(0);
  });

  test('exporting a run compiles nothing more, and its formats share one simulation', () => {
    const run = runDesign(design, { keepSnapshots: false });
    if (!run.ok) throw new Error('does not compile');
    expect(exportRun(run, 'chrome-trace').ok).toBe(true);
    expect(exportRun(run, 'torch-csv', { torchFormat: 'compute_comms' }).ok).toBe(true);
    expect(exportRun(run, 'plan').ok).toBe(true);
    expect(calls.compiled).toHaveLength(1);
    expect(calls.simulated).toBe(1);
  });

  test('a comparison compiles and simulates each design once', () => {
    const other = {
      ...design,
      name: 'gpipe p4 m8',
      directives: [{ ...design.directives[0]!, builder: 'gpipe' }],
    };
    const rows = compareDesigns([design, other as Design]);
    expect(rows.every((r) => r.ok)).toBe(true);
    expect(calls.compiled).toEqual([design, other]);
    expect(calls.simulated).toBe(2);
  });
});
