import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { passListing } from '../../test/builders/listing.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { oneFOneB } from './oneFOneB.ts';

test('1F1B on 4 ranks and 8 microbatches warms rank 0 up with 3 forwards, then alternates, then drains', () => {
  const { programs } = oneFOneB.build(inputFor(oneFOneB, 4, 8));
  expect(passListing(programs[0]!)).toBe('F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7');
  expect(passListing(programs[3]!)).toBe('F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7');
});

test('1F1B takes (m+p−1)(F+B) and rank r holds min(m, p−r) activations', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 24 }),
      fc.record({
        F: fc.integer({ min: 1, max: 4 }),
        BI: fc.integer({ min: 1, max: 4 }),
        BW: fc.integer({ min: 0, max: 4 }),
      }),
      (p, m, costs) => {
        const schedule = oneFOneB.build(inputFor(oneFOneB, p, m));
        expect(runUnitCost(schedule, costs).makespan).toBe((m + p - 1) * (costs.F + costs.BI + costs.BW));
        expect(schedule.programs.map(peakStash)).toEqual(schedule.programs.map((_, r) => Math.min(m, p - r)));
      },
    ),
  );
});
