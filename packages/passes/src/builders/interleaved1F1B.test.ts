import fc from 'fast-check';
import { expect, test } from 'vitest';
import { readFixture, TORCH_INTERLEAVED_ORDERS } from '../../../../test/repoFiles.ts';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import { interleaved1F1B } from './interleaved1F1B.ts';
import { torchRow } from './torchActions.ts';

test('interleaved 1F1B places stage s on rank s mod p', () => {
  expect(interleaved1F1B.build(inputFor(interleaved1F1B, 2, 4, 3)).placement).toEqual([0, 1, 0, 1, 0, 1]);
});

test('interleaved 1F1B on 2 ranks, 4 microbatches, 2 chunks runs forwards in groups of p per chunk and backwards in reverse chunk order', () => {
  const { programs } = interleaved1F1B.build(inputFor(interleaved1F1B, 2, 4, 2));
  // Rank 0 warms up with (p−r−1)·2 + (v−1)·p = 4 forwards.
  expect(torchRow(programs[0]!).join(' ')).toBe(
    '0F0 0F1 2F0 2F1 0F2 2B0 0F3 2B1 2F2 0B0 2F3 0B1 2B2 2B3 0B2 0B3',
  );
  expect(torchRow(programs[1]!).join(' ')).toBe(
    '1F0 1F1 3F0 3B0 3F1 3B1 1F2 1B0 1F3 1B1 3F2 3B2 3F3 3B3 1B2 1B3',
  );
});

test('interleaved 1F1B with v chunks takes m(F+B) + (p−1)(F+B)/v when each chunk costs 1/v of a stage', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 2, max: 4 }),
      fc.record({
        F: fc.integer({ min: 1, max: 3 }),
        BI: fc.integer({ min: 1, max: 3 }),
        BW: fc.integer({ min: 0, max: 3 }),
      }),
      (p, rounds, v, chunkCosts) => {
        const m = p * rounds;
        const perChunk = chunkCosts.F + chunkCosts.BI + chunkCosts.BW;
        const stage = v * perChunk;
        const schedule = interleaved1F1B.build(inputFor(interleaved1F1B, p, m, v));
        expect(runUnitCost(schedule, chunkCosts).makespan).toBe(m * stage + ((p - 1) * stage) / v);
      },
    ),
  );
});

test('interleaved 1F1B holds p + (p−1)/v stages of activations on rank 0 once m ≥ 2p', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 2, max: 4 }),
      fc.integer({ min: 2, max: 4 }),
      (p, rounds, v) => {
        const schedule = interleaved1F1B.build(inputFor(interleaved1F1B, p, p * rounds, v));
        expect(peakStash(schedule.programs[0]!) / v).toBeCloseTo(p + (p - 1) / v, 9);
      },
    ),
  );
});

test('interleaved 1F1B with one chunk warms up rank r with 2·(p−1−r) forwards, as torch does, not 1F1B’s p−1−r', () => {
  const { programs } = interleaved1F1B.build(inputFor(interleaved1F1B, 4, 8, 1));
  const forwardsBeforeFirstBackward = (program: readonly (readonly { pass: string }[])[]) =>
    program.findIndex((slot) => slot[0]!.pass === 'B');
  // The warm-up, then the steady state's first forward.
  expect(programs.map(forwardsBeforeFirstBackward)).toEqual([6 + 1, 4 + 1, 2 + 1, 0 + 1]);
});

test('interleaved 1F1B accepts microbatches that are not a multiple of ranks, as torch does', () => {
  for (const m of [3, 5, 6, 7, 10])
    expect(interleaved1F1B.check(inputFor(interleaved1F1B, 4, m))).toEqual([]);
});

test('interleaved 1F1B refuses microbatches that do not divide into ⌊m/p⌋ rounds, naming the rounds', () => {
  expect(interleaved1F1B.check(inputFor(interleaved1F1B, 4, 9))).toEqual([
    {
      field: 'microbatches',
      message:
        "interleaved-1f1b cuts 9 microbatches into ⌊m/ranks⌋ = 2 rounds, so needs a multiple of 2 (as torch's ScheduleInterleaved1F1B), got 9",
    },
  ]);
});

/** A torch CSV's actions rank by rank; its empty cells are idle time steps, which a program leaves to the simulator. */
function torchActionsByRank(csv: string): string[][] {
  return csv
    .trim()
    .split('\n')
    .map((line) =>
      line
        .trim()
        .split(',')
        .filter((cell) => cell !== ''),
    );
}

test.each(TORCH_INTERLEAVED_ORDERS)(
  'interleaved 1F1B on 4 ranks runs torch’s ScheduleInterleaved1F1B order action for action (%s)',
  async (file, m, v) => {
    const reference = torchActionsByRank(await readFixture(`torch/${file}`));
    const { programs } = interleaved1F1B.build(inputFor(interleaved1F1B, 4, m, v));
    expect(programs.map((program) => torchRow(program))).toEqual(reference);
  },
);
