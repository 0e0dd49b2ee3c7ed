import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { torchRow } from './torchActions.ts';
import { zbv } from './zbv.ts';

test('ZB-V places stages 0..p−1 down the ranks and p..2p−1 back up', () => {
  expect(zbv.build(inputFor(zbv, 3, 6)).placement).toEqual([0, 1, 2, 2, 1, 0]);
});

test('ZB-V on 2 ranks and 4 microbatches runs rank 0 as torch does: 0F0 0F1 0F2 3F0 3I0 3W0 …', () => {
  const { programs } = zbv.build(inputFor(zbv, 2, 4));
  expect(torchRow(programs[0]!).join(' ')).toBe(
    '0F0 0F1 0F2 3F0 3I0 3W0 3F1 3I1 3W1 0F3 0I0 0W0 3F2 3I2 3W2 0I1 0W1 3F3 3I3 3W3 0I2 0W2 0I3 0W3',
  );
});

test('ZB-V on 2 ranks and 4 microbatches runs rank 1 as torch does: 1F0 2F0 1F1 2F1 2I0 2W0 …', () => {
  const { programs } = zbv.build(inputFor(zbv, 2, 4));
  expect(torchRow(programs[1]!).join(' ')).toBe(
    '1F0 2F0 1F1 2F1 2I0 2W0 1F2 1I0 1W0 2F2 2I1 2W1 1F3 1I1 1W1 2F3 2I2 2W2 1I2 2I3 1I3 1W2 2W3 1W3',
  );
});

const filled = fc
  .record({ p: fc.integer({ min: 1, max: 8 }), extra: fc.integer({ min: 0, max: 12 }) })
  .map(({ p, extra }) => ({ p, m: 2 * p - 1 + extra }));

test('ZB-V has no bubble inside any rank span when F = BI = BW and m ≥ 2p−1', () => {
  fc.assert(
    fc.property(filled, ({ p, m }) => {
      const run = runUnitCost(zbv.build(inputFor(zbv, p, m)));
      expect(run.ranks.map((r) => r.spanBubble)).toEqual(run.ranks.map(() => 0));
    }),
  );
});

test('ZB-V takes m(F+B) + (p−1)F/2 when F = BI = BW and m ≥ 2p−1 (F a full stage: two chunks)', () => {
  fc.assert(
    fc.property(filled, fc.integer({ min: 1, max: 3 }), ({ p, m }, chunk) => {
      const F = 2 * chunk;
      const run = runUnitCost(zbv.build(inputFor(zbv, p, m)), { F: chunk, BI: chunk, BW: chunk });
      expect(run.makespan).toBe(m * 3 * F + ((p - 1) * F) / 2);
    }),
  );
});

test('ZB-V holds p stages of activations (2p chunks) on every rank once m ≥ 2p−1', () => {
  fc.assert(
    fc.property(filled, ({ p, m }) => {
      expect(zbv.build(inputFor(zbv, p, m)).programs.map(peakStash)).toEqual(Array(p).fill(2 * p));
    }),
  );
});

test('ZB-V with fewer than 2p−1 microbatches drops the missing ones from the pattern', () => {
  const { programs } = zbv.build(inputFor(zbv, 4, 2));
  expect(programs.every((program) => program.every((slot) => slot[0]!.mb < 2))).toBe(true);
  expect(programs.map((program) => program.length)).toEqual([12, 12, 12, 12]);
});
