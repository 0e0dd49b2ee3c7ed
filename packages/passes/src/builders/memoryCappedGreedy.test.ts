import fc from 'fast-check';
import { expect, test } from 'vitest';
import { peakStash, programViolations } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { memoryCappedGreedy } from './memoryCappedGreedy.ts';
import { linearPlacement, vPlacement } from './placement.ts';

test('the memory-capped greedy completes under any cap of at least one slot per stage, and respects it', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 24 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 16 }),
      (p, m, v, slack) => {
        const placement = v ? vPlacement(p) : linearPlacement(p);
        const cap = (v ? 2 : 1) + slack;
        const programs = memoryCappedGreedy({ placement, microbatches: m, stashCap: () => cap });
        expect(programViolations({ placement, programs }, m)).toEqual([]);
        expect(Math.max(...programs.map(peakStash))).toBeLessThanOrEqual(cap);
        runUnitCost({ placement, programs }, { F: 2, BI: 3, BW: 1 });
      },
    ),
  );
});

test('the memory-capped greedy refuses a cap below one microbatch of the rank’s stages', () => {
  expect(() => memoryCappedGreedy({ placement: vPlacement(2), microbatches: 2, stashCap: () => 1 })).toThrow(
    /stuck/,
  );
});
