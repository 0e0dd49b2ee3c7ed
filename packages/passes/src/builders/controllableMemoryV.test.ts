import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { oneFOneB } from './oneFOneB.ts';
import { vHalf, vHalfActivations } from './vHalf.ts';
import { vMin, vMinActivations } from './vMin.ts';

test('V-Half keeps (p+2)//2 and V-Min (p+4)//3 microbatches of activations', () => {
  expect([1, 2, 3, 4, 6, 8, 16].map(vHalfActivations)).toEqual([1, 2, 2, 3, 4, 5, 9]);
  expect([1, 2, 3, 4, 6, 8, 16].map(vMinActivations)).toEqual([1, 2, 2, 2, 3, 4, 6]);
});

const shapes = fc.record({ p: fc.integer({ min: 1, max: 10 }), m: fc.integer({ min: 1, max: 30 }) });

test('V-Half never holds more than (p+2)//2 full-stage microbatches (2× in half-stage chunks) on any rank', () => {
  fc.assert(
    fc.property(shapes, ({ p, m }) => {
      const peaks = vHalf.build(inputFor(vHalf, p, m)).programs.map(peakStash);
      expect(Math.max(...peaks)).toBeLessThanOrEqual(2 * vHalfActivations(p));
    }),
    { numRuns: 60 },
  );
});

test('V-Min never holds more than (p+4)//3 full-stage microbatches (2× in half-stage chunks) on any rank', () => {
  fc.assert(
    fc.property(shapes, ({ p, m }) => {
      const peaks = vMin.build(inputFor(vMin, p, m)).programs.map(peakStash);
      expect(Math.max(...peaks)).toBeLessThanOrEqual(2 * vMinActivations(p));
    }),
    { numRuns: 60 },
  );
});

test('V-Half and V-Min place two chunks per rank in a V', () => {
  expect(vHalf.build(inputFor(vHalf, 2, 4)).placement).toEqual([0, 1, 1, 0]);
  expect(vMin.build(inputFor(vMin, 2, 4)).placement).toEqual([0, 1, 1, 0]);
});

test('V-Half on 8 ranks and 32 microbatches beats 1F1B with half its activation memory', () => {
  // Chunks cost half a stage: F = BI = BW = 1 per chunk is 1F1B with F = 2, BI = BW = 2.
  const v = runUnitCost(vHalf.build(inputFor(vHalf, 8, 32))).makespan;
  const baseline = runUnitCost(oneFOneB.build(inputFor(oneFOneB, 8, 32)), { F: 2, BI: 2, BW: 2 }).makespan;
  expect(v).toBeLessThan(baseline);
});
