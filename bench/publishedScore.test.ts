import { describe, expect, it } from 'vitest';
import { medianAbs, rankings, rowRatios, type ScoreInput, scoreRow, targets } from './publishedScore.ts';

const llama = (claim: string, published: number, predicted: number | undefined): ScoreInput => ({
  table: 'Table 4',
  claim,
  kind: 'value',
  series: 'MFU',
  published,
  predicted,
});

describe('a row against its published figure', () => {
  it('scores a gain as the gain itself: +37.5% against +31% misses by 21%', () => {
    const s = scoreRow({ kind: 'gain', published: 0.31, predicted: 0.375 });
    expect(s.gap).toBeCloseTo(0.2097, 3);
    expect(s.met).toBe(false);
  });

  it('misses a gain of the opposite sign however small the difference', () => {
    const s = scoreRow({ kind: 'gain', published: 0.01, predicted: -0.001 });
    expect(s.sameSign).toBe(false);
    expect(s.met).toBe(false);
  });

  it('meets a value within ±15% and misses one beyond', () => {
    expect(scoreRow({ kind: 'value', published: 1000, predicted: 1140 }).met).toBe(true);
    expect(scoreRow({ kind: 'value', published: 1000, predicted: 860 }).met).toBe(true);
    expect(scoreRow({ kind: 'value', published: 1000, predicted: 1160 }).met).toBe(false);
    expect(scoreRow({ kind: 'value', published: 0.43, predicted: 0.336 }).met).toBe(false);
  });

  it('counts a row Stagecraft cannot express as missed, with no gap', () => {
    expect(scoreRow({ kind: 'value', published: 5630, predicted: undefined })).toEqual({
      gap: undefined,
      sameSign: false,
      met: false,
    });
  });
});

describe('ratios between rows of one series', () => {
  it('reports a wrong ratio as a miss even when each row is near its figure', () => {
    // Each row 12% off, in opposite directions: both rows pass, their ratio is 27% off.
    const r = rowRatios([llama('8K GPUs', 0.43, 0.43 * 1.12), llama('16K GPUs', 0.41, 0.41 * 0.88)]);
    expect(r).toHaveLength(1);
    expect(r[0]!.published).toBeCloseTo(0.41 / 0.43, 6);
    expect(r[0]!.gap).toBeCloseTo(0.88 / 1.12 - 1, 6);
    expect(r[0]!.met).toBe(false);
  });

  it('meets a ratio within ±10% even when both rows miss by the same factor', () => {
    const r = rowRatios([llama('8K GPUs', 0.43, 0.43 * 0.7), llama('16K GPUs', 0.41, 0.41 * 0.72)]);
    expect(r[0]!.met).toBe(true);
    expect(targets([llama('8K GPUs', 0.43, 0.43 * 0.7), llama('16K GPUs', 0.41, 0.41 * 0.72)]).pass).toEqual({
      rows: false,
      median: false,
      ratios: true,
      rankings: true,
    });
  });

  it('takes every pair of a series, later over earlier, and none across series or tables', () => {
    const rows = [
      llama('a', 0.43, 0.4),
      llama('b', 0.41, 0.39),
      llama('c', 0.38, 0.36),
      { ...llama('d', 0.5, 0.5), series: 'other' },
      { ...llama('e', 0.5, 0.5), table: 'another table' },
    ];
    expect(rowRatios(rows).map((r) => `${r.of}/${r.over}`)).toEqual(['b/a', 'c/a', 'c/b']);
  });

  it('compares gains over one baseline as their speeds, 1 + gain', () => {
    const zb = (claim: string, published: number, predicted: number): ScoreInput => ({
      table: 'ZB',
      claim,
      kind: 'gain',
      series: 'over 1F1B',
      published,
      predicted,
    });
    const [r] = rowRatios([zb('ZB-1p', 0.15, 0.1), zb('ZB-2p', 0.3, 0.32)]);
    expect(r!.published).toBeCloseTo(1.3 / 1.15, 6);
    expect(r!.predicted).toBeCloseTo(1.32 / 1.1, 6);
  });

  it('leaves a ratio with a row not simulated undecided and missed', () => {
    const [r] = rowRatios([llama('a', 0.43, 0.4), llama('b', 0.41, undefined)]);
    expect(r!.predicted).toBeUndefined();
    expect(r!.met).toBe(false);
  });

  it('refuses a series mixing gains and values', () => {
    expect(() => rowRatios([llama('a', 0.43, 0.4), { ...llama('b', 0.1, 0.1), kind: 'gain' }])).toThrow(
      /mixes a gain and a value/,
    );
  });
});

describe('rankings inside a table', () => {
  it('reports a broken order and names the pair it reverses', () => {
    // Published 43% > 41% > 38%; predicted puts the last row above the second.
    const rows = [llama('8K', 0.43, 0.336), llama('16K', 0.41, 0.275), llama('CP16', 0.38, 0.318)];
    const [r] = rankings(rows, rowRatios(rows));
    expect(r!.kept).toBe(false);
    expect(r!.flipped).toEqual(['CP16 against 16K']);
  });

  it('keeps an order predicted the same way however far the values are', () => {
    const rows = [llama('8K', 0.43, 0.3), llama('16K', 0.41, 0.29), llama('CP16', 0.38, 0.2)];
    expect(rankings(rows, rowRatios(rows))[0]!.kept).toBe(true);
  });

  it('skips a published tie: it orders nothing', () => {
    const rows = [llama('EP128', 1543, 1626), llama('EP64 mesh', 1543, 1500)];
    expect(rankings(rows, rowRatios(rows))).toEqual([]);
  });

  it('flips a gain of the opposite sign', () => {
    const gain: ScoreInput = {
      table: 'Piper',
      claim: 'DualPipeV over 1F1B-I',
      kind: 'gain',
      published: 0.1,
      predicted: -0.011,
    };
    expect(rankings([gain], [])).toEqual([{ what: gain.claim, kept: false, flipped: [gain.claim] }]);
  });

  it('leaves a series undecided when a row is not simulated and nothing else flips', () => {
    const rows = [llama('25.11', 5630, undefined), llama('26.02', 5993, undefined)];
    const t = targets(rows);
    expect(t.rankingsUndecided).toBe(1);
    expect(t.pass.rankings).toBe(false);
  });
});

describe('the summary lines', () => {
  it('takes the median of absolute gaps, odd and even counts', () => {
    expect(medianAbs([-0.3, 0.1, 0.2])).toBeCloseTo(0.2, 9);
    expect(medianAbs([0.05, -0.3, 0.1, -0.02])).toBeCloseTo(0.075, 9);
    expect(medianAbs([])).toBeNaN();
  });

  it('passes only when every row, ratio and ranking does and the median gap is at most 8%', () => {
    const good = [llama('a', 0.43, 0.44), llama('b', 0.41, 0.4)];
    expect(targets(good).pass).toEqual({ rows: true, median: true, ratios: true, rankings: true });
    const t = targets([...good, { ...llama('c', 0.38, undefined), series: 'alone' }]);
    expect(t.within).toBe(2);
    expect(t.simulated).toBe(2);
    expect(t.pass.rows).toBe(false);
  });
});
