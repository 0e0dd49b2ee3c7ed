import { expect, test } from 'vitest';
import { dualPipePlacement, linearPlacement, loopPlacement, vPlacement, vStagesOfRank } from './placement.ts';

test('linear placement puts stage s on rank s', () => {
  expect(linearPlacement(4)).toEqual([0, 1, 2, 3]);
});

test('loop placement puts stage s on rank s mod p', () => {
  expect(loopPlacement(3, 2)).toEqual([0, 1, 2, 0, 1, 2]);
});

test('V placement puts stages r and 2p−1−r on rank r', () => {
  expect(vPlacement(3)).toEqual([0, 1, 2, 2, 1, 0]);
  expect(vStagesOfRank(3, 1)).toEqual({ chunk0: 1, chunk1: 4 });
});

test('DualPipe placement runs the up pipeline from the last rank', () => {
  expect(dualPipePlacement(4)).toEqual({ down: [0, 1, 2, 3], up: [3, 2, 1, 0] });
});
