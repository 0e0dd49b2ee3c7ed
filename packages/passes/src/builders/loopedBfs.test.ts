import { expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { peakStash } from '../../test/builders/programInvariants.ts';
import { loopedBfs } from './loopedBfs.ts';
import { torchRow } from './torchActions.ts';

test('looped BFS on 2 ranks, 3 microbatches, 2 chunks runs chunk by chunk: all forwards, then backwards newest first in reverse chunk order', () => {
  const { placement, programs } = loopedBfs.build(inputFor(loopedBfs, 2, 3, 2));
  expect(placement).toEqual([0, 1, 0, 1]);
  expect(torchRow(programs[0]!).join(' ')).toBe('0F0 0F1 0F2 2F0 2F1 2F2 2B2 2B1 2B0 0B2 0B1 0B0');
  expect(torchRow(programs[1]!).join(' ')).toBe('1F0 1F1 1F2 3F0 3F1 3F2 3B2 3B1 3B0 1B2 1B1 1B0');
});

test('looped BFS holds every chunk activation of every microbatch before its first backward', () => {
  const { programs } = loopedBfs.build(inputFor(loopedBfs, 4, 8, 3));
  expect(programs.map(peakStash)).toEqual([24, 24, 24, 24]);
});
