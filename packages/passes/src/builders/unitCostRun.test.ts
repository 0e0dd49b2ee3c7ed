import { expect, test } from 'vitest';
import { Deadlock, runUnitCost } from '../../test/builders/unitCostRun.ts';
import { action, overlapped, solo } from './action.ts';

test('the unit-cost executor reports a deadlock when two ranks wait on each other', () => {
  // Rank 0 insists on its backward before rank 1 has its forward, which needs rank 0's forward.
  const schedule = {
    placement: [0, 1],
    programs: [
      [solo(action('B', 0, 0)), solo(action('F', 0, 0))],
      [solo(action('F', 1, 0)), solo(action('B', 1, 0))],
    ],
  };
  expect(() => runUnitCost(schedule)).toThrow(Deadlock);
});

test('the unit-cost executor starts a slot when its rank is free and its inputs are done', () => {
  const schedule = {
    placement: [0, 1],
    programs: [
      [solo(action('F', 0, 0)), solo(action('B', 0, 0))],
      [solo(action('F', 1, 0)), solo(action('BI', 1, 0)), solo(action('BW', 1, 0))],
    ],
  };
  const run = runUnitCost(schedule, { F: 1, BI: 2, BW: 3 });
  expect(run.timelines.map((t) => t.map(({ start, end }) => [start, end]))).toEqual([
    [
      [0, 1],
      [4, 9],
    ],
    [
      [1, 2],
      [2, 4],
      [4, 7],
    ],
  ]);
  expect(run.makespan).toBe(9);
});

test('the unit-cost executor charges an overlapped pair F&B when given, else the sum of its two actions', () => {
  // One rank holding both stages overlaps the next microbatch's forward with a backward.
  const schedule = {
    placement: [0, 0],
    programs: [
      [
        solo(action('F', 0, 0)),
        solo(action('F', 1, 0)),
        overlapped(action('F', 0, 1), action('B', 1, 0)),
        solo(action('F', 1, 1)),
        solo(action('B', 1, 1)),
        solo(action('B', 0, 0)),
        solo(action('B', 0, 1)),
      ],
    ],
  };
  expect(runUnitCost(schedule, { F: 1, BI: 1, BW: 1 }).makespan).toBe(2 + 3 + 7);
  expect(runUnitCost(schedule, { F: 1, BI: 1, BW: 1, FandB: 1.5 }).makespan).toBe(2 + 1.5 + 7);
});
