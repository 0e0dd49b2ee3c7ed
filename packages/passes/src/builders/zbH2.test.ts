import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { zbH2 } from './zbH2.ts';

const ranksAndMicrobatches = (minExtra: (p: number) => number) =>
  fc
    .record({ p: fc.integer({ min: 1, max: 8 }), extra: fc.integer({ min: 0, max: 16 }) })
    .map(({ p, extra }) => ({ p, m: minExtra(p) + extra }));

test('ZB-H2 keeps every rank busy from its first op to its last when F = BI = BW and m ≥ 2p−1', () => {
  fc.assert(
    fc.property(
      ranksAndMicrobatches((p) => 2 * p - 1),
      ({ p, m }) => {
        const run = runUnitCost(zbH2.build(inputFor(zbH2, p, m)));
        expect(run.ranks.map((r) => r.spanBubble)).toEqual(run.ranks.map(() => 0));
      },
    ),
  );
});

test('ZB-H2 takes m(F+B) + (p−1)F when F = BI = BW and m ≥ p', () => {
  fc.assert(
    fc.property(
      ranksAndMicrobatches((p) => p),
      ({ p, m }) => {
        expect(runUnitCost(zbH2.build(inputFor(zbH2, p, m))).makespan).toBe(3 * m + (p - 1));
      },
    ),
  );
});

test('ZB-H2 holds at most 2p−1 activations, and rank 0 reaches it once m ≥ 2p−1', () => {
  fc.assert(
    fc.property(
      ranksAndMicrobatches(() => 1),
      ({ p, m }) => {
        const peaks = zbH2.build(inputFor(zbH2, p, m)).programs.map(peakStash);
        expect(Math.max(...peaks)).toBeLessThanOrEqual(2 * p - 1);
        if (m >= 2 * p - 1) expect(peaks[0]).toBe(2 * p - 1);
      },
    ),
  );
});

test('ZB-H2 warms rank r up with 2(p−r)−1 forwards before its first input backward', () => {
  const { programs } = zbH2.build(inputFor(zbH2, 4, 12));
  const warmups = programs.map((program) => program.findIndex((slot) => slot[0]!.pass !== 'F'));
  expect(warmups).toEqual([7, 5, 3, 1]);
});
