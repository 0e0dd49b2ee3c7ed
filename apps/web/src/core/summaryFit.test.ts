import fc from 'fast-check';
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

  test('a summary of 2,048 device ids is cut in a dozen measures, not thousands', () => {
    const text = `schedule dualpipe · m=32 · groups [${Array.from({ length: 2048 }, (_, i) => i).join(', ')}]`;
    let measures = 0;
    const clipped = clipAtWord(text, (s) => {
      measures++;
      return s.length <= 60;
    });
    expect(clipped.length).toBeLessThanOrEqual(60);
    expect(clipped.endsWith(' …')).toBe(true);
    expect(measures).toBeLessThan(20);
  });

  test('a summary of 2,048 device ids is placed and cut without measuring all of it', () => {
    const text = `schedule dualpipe · m=32 · groups [${Array.from({ length: 2048 }, (_, i) => i).join(', ')}]`;
    const measured: number[] = [];
    const fit = fitSummary(text, { beside: 40, line: 60 }, (s) => {
      measured.push(s.length);
      return s.length;
    });
    expect(fit.below).toBe(true);
    expect(fit.text.length).toBeLessThanOrEqual(60);
    // Longest measure: under about twice what fits, not the 10k characters of the whole.
    expect(Math.max(...measured)).toBeLessThan(200);
    expect(measured.length).toBeLessThan(30);
  });

  test('the cut keeps the longest run of whole words that fits, for any words and width', () => {
    const longest = (text: string, n: number) => {
      const words = text.split(' ');
      for (let k = words.length - 1; k > 0; k--) {
        const head = words
          .slice(0, k)
          .join(' ')
          .replace(/[\s·,;:→=-]+$/u, '');
        if (head && `${head} …`.length <= n) return `${head} …`;
      }
      return '…';
    };
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('PP=1', '·', 'm=8', '[0,', '1,', '2]', 'dualpipev', '→', 'x'), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.integer({ min: 1, max: 80 }),
        (words, n) => {
          const text = words.join(' ');
          const expected = text.length <= n ? text : longest(text, n);
          expect(clipAtWord(text, within(n))).toBe(expected);
        },
      ),
    );
  });
});
