import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import type { Action } from './builder.ts';
import { dualPipe } from './dualPipe.ts';

test('DualPipe puts down-stage r and up-stage p−1−r on rank r', () => {
  expect(dualPipe.build(inputFor(dualPipe, 4, 8)).placement).toEqual({
    down: [0, 1, 2, 3],
    up: [3, 2, 1, 0],
  });
});

test('DualPipe on 4 ranks and 8 microbatches runs rank 0 from the down pipeline’s entry and rank 3 from the up pipeline’s', () => {
  const { programs } = dualPipe.build(inputFor(dualPipe, 4, 8));
  const first = (rank: number) => programs[rank]![0]![0]!;
  expect(first(0)).toEqual({ stage: 0, mb: 0, pass: 'F', dir: 0 });
  expect(first(3)).toEqual({ stage: 0, mb: 0, pass: 'F', dir: 1 });
});

test('DualPipe’s rank p−1−r runs rank r’s program with the two directions swapped', () => {
  const swap = (a: Action): Action => ({ ...a, dir: a.dir === 0 ? 1 : 0 });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 6 }), (half, extra) => {
      const p = 2 * half;
      const { programs } = dualPipe.build(inputFor(dualPipe, p, 2 * p + 2 * extra));
      programs.forEach((program, r) => {
        expect(programs[p - 1 - r]).toEqual(program.map((slot) => slot.map(swap)));
      });
    }),
  );
});

test('DualPipe gives each direction half of the microbatches', () => {
  const { programs } = dualPipe.build(inputFor(dualPipe, 4, 12));
  const forwards = programs[0]!.flat().filter((a) => a.pass === 'F');
  expect(forwards.filter((a) => a.dir === 0).map((a) => a.mb)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(forwards.filter((a) => a.dir === 1).map((a) => a.mb)).toEqual([0, 1, 2, 3, 4, 5]);
});

test('DualPipe needs an even number of ranks and an even number of at least 2×ranks microbatches', () => {
  expect(dualPipe.check(inputFor(dualPipe, 3, 12))).toEqual([
    { field: 'ranks', message: 'dualpipe needs an even number of ranks, got 3' },
  ]);
  expect(dualPipe.check(inputFor(dualPipe, 4, 9))).toEqual([
    {
      field: 'microbatches',
      message:
        'dualpipe splits microbatches evenly between its two directions, so needs an even number, got 9',
    },
  ]);
  expect(dualPipe.check(inputFor(dualPipe, 4, 6))).toEqual([
    {
      field: 'microbatches',
      message: 'dualpipe needs at least 2×ranks = 8 microbatches (both directions), got 6',
    },
  ]);
});

const shapes = fc
  .record({ half: fc.integer({ min: 1, max: 4 }), extra: fc.integer({ min: 0, max: 6 }) })
  .map(({ half, extra }) => ({ p: 2 * half, m: 4 * half + 2 * extra }));

test('DualPipe idles each device (p/2−1)(F&B + B − 3W) per step when F = BI = BW and F&B = F+B', () => {
  fc.assert(
    fc.property(shapes, ({ p, m }) => {
      const run = runUnitCost(dualPipe.build(inputFor(dualPipe, p, m)));
      const bubble = (p / 2 - 1) * (3 + 2 - 3);
      expect(run.ranks.map((r) => run.makespan - r.busy)).toEqual(run.ranks.map(() => bubble));
    }),
  );
});

test('DualPipe’s worst device idles (p/2−1)(F&B + B − 3W) per step when F = BI = BW, and max(F, B) ≤ F&B ≤ F+B', () => {
  fc.assert(
    fc.property(shapes, fc.integer({ min: 0, max: 4 }), ({ p, m }, quarters) => {
      const FandB = 2 + quarters / 4;
      const run = runUnitCost(dualPipe.build(inputFor(dualPipe, p, m)), { F: 1, BI: 1, BW: 1, FandB });
      const worst = Math.max(...run.ranks.map((r) => run.makespan - r.busy));
      expect(worst).toBeCloseTo((p / 2 - 1) * (FandB + 2 - 3), 9);
    }),
  );
});

test('DualPipe holds p+1 stage activations on every rank', () => {
  fc.assert(
    fc.property(shapes, ({ p, m }) => {
      expect(dualPipe.build(inputFor(dualPipe, p, m)).programs.map(peakStash)).toEqual(Array(p).fill(p + 1));
    }),
  );
});
