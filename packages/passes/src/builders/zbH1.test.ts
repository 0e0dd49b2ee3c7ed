import fc from 'fast-check';
import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { passListing } from '../../test/builders/listing.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { zbH1 } from './zbH1.ts';

test('ZB-H1 on 4 ranks and 8 microbatches runs rank 0 as F0 F1 F2 F3 BI0 BW0 F4 BI1 BW1 … BI7 BW7', () => {
  const { programs } = zbH1.build(inputFor(zbH1, 4, 8));
  expect(passListing(programs[0]!)).toBe(
    'F0 F1 F2 F3 BI0 BW0 F4 BI1 BW1 F5 BI2 BW2 F6 BI3 BW3 F7 BI4 BW4 BI5 BW5 BI6 BW6 BI7 BW7',
  );
});

test('ZB-H1 on 4 ranks and 8 microbatches runs rank 3 with its BWs deferred by 3 steps: F0 BI0 … F3 BI3 BW0 F4 …', () => {
  const { programs } = zbH1.build(inputFor(zbH1, 4, 8));
  expect(passListing(programs[3]!)).toBe(
    'F0 BI0 F1 BI1 F2 BI2 F3 BI3 BW0 F4 BI4 BW1 F5 BI5 BW2 F6 BI6 BW3 F7 BI7 BW4 BW5 BW6 BW7',
  );
});

// The deferred BW fills gaps one F or one BI wide, so the form needs BW ≤ min(F, BI).
test('ZB-H1 takes m(F+B) + (p−1)(F+BI−BW) when m ≥ p and BW ≤ min(F, BI), holding p activations', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 0, max: 16 }),
      fc.record({
        F: fc.integer({ min: 1, max: 4 }),
        BI: fc.integer({ min: 1, max: 4 }),
        w: fc.integer({ min: 0, max: 100 }),
      }),
      (p, extra, { F, BI, w }) => {
        const m = p + extra;
        const BW = Math.round((Math.min(F, BI) * w) / 100);
        const schedule = zbH1.build(inputFor(zbH1, p, m));
        expect(runUnitCost(schedule, { F, BI, BW }).makespan).toBe(
          m * (F + BI + BW) + (p - 1) * (F + BI - BW),
        );
        expect(Math.max(...schedule.programs.map(peakStash))).toBe(p);
      },
    ),
  );
});
