import fc from 'fast-check';
import { expect, test } from 'vitest';
import { readFixture } from '../../../../test/repoFiles.ts';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { dualPipeV } from './dualPipeV.ts';
import { torchCsv } from './torchActions.ts';

test('DualPipeV on 4 ranks and 10 microbatches reproduces torch.distributed.pipelining’s dualpipev_4rank_10mb.csv cell for cell', async () => {
  const reference = await readFixture('torch/dualpipev_4rank_10mb.csv');
  const rows = (csv: string) =>
    csv
      .trim()
      .split('\n')
      .map((line) => line.trim().split(','));
  expect(rows(torchCsv(dualPipeV.build(inputFor(dualPipeV, 4, 10)).programs))).toEqual(rows(reference));
});

test('DualPipeV places stage r and 2N−1−r on rank r', () => {
  expect(dualPipeV.build(inputFor(dualPipeV, 4, 8)).placement).toEqual([0, 1, 2, 3, 3, 2, 1, 0]);
});

test('DualPipeV needs at least 2×ranks microbatches', () => {
  expect(dualPipeV.check(inputFor(dualPipeV, 4, 6))).toEqual([
    { field: 'microbatches', message: 'dualpipev needs at least 2×ranks = 8 microbatches, got 6' },
  ]);
  expect(dualPipeV.check(inputFor(dualPipeV, 4, 8))).toEqual([]);
});

const shapes = fc.record({ n: fc.integer({ min: 1, max: 8 }), extra: fc.integer({ min: 0, max: 10 }) });

// DeepSeek's table gives the bubble (PP/2−1)(F&B + B − 3W) with PP = 2N stages. Simulated with
// F = BI = BW and F&B = F+B, every device idles exactly that long over the step (makespan minus
// its own compute); with a cheaper F&B the devices differ and the formula is the worst one's,
// exactly while the pair costs between its longer half (full overlap) and F+B (none).
test('DualPipeV idles each device (N−1)(F&B + B − 3W) per step when F = BI = BW and F&B = F+B', () => {
  fc.assert(
    fc.property(shapes, ({ n, extra }) => {
      const run = runUnitCost(dualPipeV.build(inputFor(dualPipeV, n, 2 * n + extra)));
      const bubble = (n - 1) * (3 + 2 - 3);
      expect(run.ranks.map((r) => run.makespan - r.busy)).toEqual(run.ranks.map(() => bubble));
    }),
  );
});

test('DualPipeV’s worst device idles (N−1)(F&B + B − 3W) per step when F = BI = BW, and max(F, B) ≤ F&B ≤ F+B', () => {
  fc.assert(
    fc.property(shapes, fc.integer({ min: 0, max: 4 }), ({ n, extra }, quarters) => {
      const FandB = 2 + quarters / 4; // from max(F, B) = 2 (full overlap) to F+B = 3 (none)
      const run = runUnitCost(dualPipeV.build(inputFor(dualPipeV, n, 2 * n + extra)), {
        F: 1,
        BI: 1,
        BW: 1,
        FandB,
      });
      const worst = Math.max(...run.ranks.map((r) => run.makespan - r.busy));
      expect(worst).toBeCloseTo((n - 1) * (FandB + 2 - 3), 9);
    }),
  );
});

test('DualPipeV holds 2N+1 chunk activations (S+1 for S = 2N stages) on every rank', () => {
  fc.assert(
    fc.property(shapes, ({ n, extra }) => {
      const peaks = dualPipeV.build(inputFor(dualPipeV, n, 2 * n + extra)).programs.map(peakStash);
      expect(peaks).toEqual(Array(n).fill(2 * n + 1));
    }),
  );
});
