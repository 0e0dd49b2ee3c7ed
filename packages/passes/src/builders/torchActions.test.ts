import { expect, test } from 'vitest';
import { action, overlapped, solo } from './action.ts';
import { torchAction, torchCsv, torchSlot } from './torchActions.ts';

test('torch actions are {stage}{F|I|W|B}{microbatch}: BI is I, BW is W, a fused backward B', () => {
  expect(['F', 'BI', 'BW', 'B'].map((pass) => torchAction(action(pass as 'F', 7, 3)))).toEqual([
    '7F3',
    '7I3',
    '7W3',
    '7B3',
  ]);
});

test('an overlapped slot is (forward;backward)OVERLAP_F_B', () => {
  expect(torchSlot(overlapped(action('F', 0, 7), action('B', 7, 3)))).toBe('(0F7;7B3)OVERLAP_F_B');
});

test('the compute_only CSV has one line per rank and one cell per slot', () => {
  const programs = [[solo(action('F', 0, 0)), solo(action('B', 0, 0))], [solo(action('F', 1, 0))]];
  expect(torchCsv(programs)).toBe('0F0,0B0\n1F0');
});

test('a stage naming tells a DualPipe export which torch stage each direction’s stage is', () => {
  const upAsSecondCopy = (a: { stage: number; dir?: 0 | 1 }) => (a.dir === 1 ? 4 + a.stage : a.stage);
  expect(torchAction(action('F', 1, 0, 1), upAsSecondCopy)).toBe('5F0');
});
