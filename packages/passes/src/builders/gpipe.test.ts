import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { passListing } from '../../test/builders/listing.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { gpipe } from './gpipe.ts';

test('GPipe runs every rank as all forwards in microbatch order, then all backwards in microbatch order', () => {
  const { programs, placement } = gpipe.build(inputFor(gpipe, 3, 4));
  expect(placement).toEqual([0, 1, 2]);
  for (const program of programs) expect(passListing(program)).toBe('F0 F1 F2 F3 B0 B1 B2 B3');
});

test('GPipe takes (m+p−1)(F+B) and holds all m activations on rank 0', () => {
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
        const schedule = gpipe.build(inputFor(gpipe, p, m));
        expect(runUnitCost(schedule, costs).makespan).toBe((m + p - 1) * (costs.F + costs.BI + costs.BW));
        expect(peakStash(schedule.programs[0]!)).toBe(m);
      },
    ),
  );
});
