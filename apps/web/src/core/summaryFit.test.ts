import { describe, expect, test } from 'vitest';
import { clipAtWord, fitSummary } from './summaryFit.ts';

/** One unit of width per character: what fits is easy to count. */
const chars = (s: string) => s.length;
const within = (n: number) => (s: string) => s.length <= n;

describe('directive summaries in narrow rows', () => {
  test('a summary is cut between words with an ellipsis, never inside one', () => {
    expect(clipAtWord('PP=1 MB=3 PASS=B', within(12))).toBe('PP=1 MB=3 …');
    expect(clipAtWord('PP=1 MB=3 PASS=B', within(8))).toBe('PP=1 …');
    expect(clipAtWord('PP=12', within(3))).toBe('…');
  });

  test('a separator is not left before the ellipsis', () => {
    expect(clipAtWord('dualpipev · m=8 · p=4', within(17))).toBe('dualpipev · m=8 …');
    expect(clipAtWord('PP=0 → [0, 1, 2, 3, 4, 5, 6, 7]', within(16))).toBe('PP=0 → [0, 1 …');
  });

  test('a summary that fits is left whole', () => {
    expect(clipAtWord('PP=1', within(4))).toBe('PP=1');
  });

  test('a summary too long for the row beside the op takes a line of its own before it is cut', () => {
    expect(fitSummary('PP=1', { beside: 3, line: 30 }, chars)).toEqual({ text: 'PP=1', below: true });
    expect(fitSummary('PP=1', { beside: 4, line: 30 }, chars)).toEqual({ text: 'PP=1', below: false });
    expect(fitSummary('PP=1 MB=3 PASS=B', { beside: 3, line: 12 }, chars)).toEqual({
      text: 'PP=1 MB=3 …',
      below: true,
    });
  });
});
