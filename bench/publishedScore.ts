/**
 * How docs/published.md scores predictions against published figures: each row's gap, the ratios
 * between rows of one published series, the rankings those rows imply, and the targets of issue 29
 * §5. Pure arithmetic on numbers, kept apart from the simulations so that it can be tested on
 * figures chosen to pass and to fail.
 */

/** A value is compared as itself; a gain (a schedule's speed-up over another) as the gain itself. */
export type Kind = 'gain' | 'value';

export interface ScoreInput {
  /** The published table (or paper) the row is one of. */
  table: string;
  claim: string;
  kind: Kind;
  /**
   * Rows of one table measuring one quantity on configurations the source compares (one model's
   * layouts, one baseline's rivals): their ratios and their order are checked. Rows without a
   * series stand alone.
   */
  series?: string;
  published: number;
  /** Undefined when Stagecraft cannot express the row: it counts as missed. */
  predicted: number | undefined;
}

/** A row within ±15% of its published figure (issue 29 §5). */
export const ROW_TOLERANCE = 0.15;
/** A ratio between two rows within ±10% of the published ratio (issue 29 §5). */
export const RATIO_TOLERANCE = 0.1;

export interface RowScore {
  /** Predicted over published minus one; for a gain, predicted gain over published gain minus one. */
  gap: number | undefined;
  /** False when a predicted gain has the opposite sign of the published one: the ranking flips. */
  sameSign: boolean;
  met: boolean;
}

export function scoreRow(row: Pick<ScoreInput, 'kind' | 'published' | 'predicted'>): RowScore {
  if (row.predicted === undefined) return { gap: undefined, sameSign: false, met: false };
  // +37.5% against +31% is a 21% miss: the gain divided, not the speed-ups (1.375 / 1.31).
  const gap = row.predicted / row.published - 1;
  const sameSign = row.kind === 'value' || Math.sign(row.predicted) === Math.sign(row.published);
  return { gap, sameSign, met: sameSign && Math.abs(gap) <= ROW_TOLERANCE };
}

/** A row's throughput relative to its baseline: a gain g runs 1 + g as fast; a value is itself. */
const level = (kind: Kind, x: number) => (kind === 'gain' ? 1 + x : x);

export interface RatioScore {
  table: string;
  of: string;
  over: string;
  published: number;
  predicted: number | undefined;
  gap: number | undefined;
  met: boolean;
}

/** Every pair of rows sharing a table and a series, the later over the earlier. */
export function rowRatios(rows: readonly ScoreInput[]): RatioScore[] {
  const out: RatioScore[] = [];
  rows.forEach((a, i) => {
    for (const b of rows.slice(i + 1)) {
      if (a.series === undefined || a.table !== b.table || a.series !== b.series) continue;
      if (a.kind !== b.kind) throw new Error(`${a.table}: series ${a.series} mixes a gain and a value`);
      const published = level(b.kind, b.published) / level(a.kind, a.published);
      const predicted =
        a.predicted === undefined || b.predicted === undefined
          ? undefined
          : level(b.kind, b.predicted) / level(a.kind, a.predicted);
      const gap = predicted === undefined ? undefined : predicted / published - 1;
      out.push({
        table: a.table,
        of: b.claim,
        over: a.claim,
        published,
        predicted,
        gap,
        met: gap !== undefined && Math.abs(gap) <= RATIO_TOLERANCE,
      });
    }
  });
  return out;
}

export interface RankingScore {
  what: string;
  /** Undefined when a row it needs is not simulated. */
  kept: boolean | undefined;
  /** The pairs (or the gain) whose order the prediction reverses. */
  flipped: string[];
}

/**
 * The orders a user would read off a table: which of two schedules is faster (a gain's sign), and
 * within a series, which of every two configurations is faster (a ratio's side of 1). A published
 * tie orders nothing and is skipped.
 */
export function rankings(rows: readonly ScoreInput[], ratios: readonly RatioScore[]): RankingScore[] {
  const out: RankingScore[] = [];
  for (const r of rows.filter((x) => x.kind === 'gain')) {
    const kept = r.predicted === undefined ? undefined : Math.sign(r.predicted) === Math.sign(r.published);
    out.push({ what: r.claim, kept, flipped: kept === false ? [r.claim] : [] });
  }
  const series = new Map<string, RatioScore[]>();
  for (const r of rows.filter((x) => x.series !== undefined)) {
    const key = `${r.table}: ${r.series}`;
    if (!series.has(key)) series.set(key, []);
  }
  for (const q of ratios) {
    const row = rows.find((r) => r.claim === q.of && r.table === q.table)!;
    series.get(`${row.table}: ${row.series}`)!.push(q);
  }
  for (const [what, pairs] of series) {
    const ordered = pairs.filter((q) => q.published !== 1);
    if (ordered.length === 0) continue;
    const undecided = ordered.some((q) => q.predicted === undefined);
    const flipped = ordered
      .filter((q) => q.predicted !== undefined && Math.sign(q.predicted - 1) !== Math.sign(q.published - 1))
      .map((q) => `${q.of} against ${q.over}`);
    out.push({
      what: `${what} (order of ${ordered.length} pair${ordered.length === 1 ? '' : 's'})`,
      kept: flipped.length > 0 ? false : undecided ? undefined : true,
      flipped,
    });
  }
  return out;
}

/** The median of the absolute values; NaN for none. */
export function medianAbs(xs: readonly number[]): number {
  const s = xs.map(Math.abs).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Targets {
  rows: number;
  simulated: number;
  within: number;
  medianGap: number;
  ratios: number;
  ratiosWithin: number;
  rankings: number;
  rankingsKept: number;
  rankingsUndecided: number;
  flipped: string[];
}

/** Issue 29 §5's targets: every row ±15%, median |gap| ≤ 8%, every ratio ±10%, every ranking kept. */
export function targets(rows: readonly ScoreInput[]): Targets & { pass: Record<string, boolean> } {
  const scores = rows.map(scoreRow);
  const gaps = scores.flatMap((s) => (s.gap === undefined ? [] : [s.gap]));
  const ratios = rowRatios(rows);
  const ranked = rankings(rows, ratios);
  const t: Targets = {
    rows: rows.length,
    simulated: gaps.length,
    within: scores.filter((s) => s.met).length,
    medianGap: medianAbs(gaps),
    ratios: ratios.length,
    ratiosWithin: ratios.filter((r) => r.met).length,
    rankings: ranked.length,
    rankingsKept: ranked.filter((r) => r.kept === true).length,
    rankingsUndecided: ranked.filter((r) => r.kept === undefined).length,
    flipped: ranked.flatMap((r) => r.flipped),
  };
  return {
    ...t,
    pass: {
      rows: t.within === t.rows,
      median: t.medianGap <= 0.08,
      ratios: t.ratiosWithin === t.ratios,
      rankings: t.rankingsKept === t.rankings,
    },
  };
}
