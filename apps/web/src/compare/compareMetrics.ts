/**
 * The compare table as data: one row per metric, one cell per variant, each cell's difference
 * against the baseline variant (the user's choice, the first by default), whether that difference
 * is an improvement, and which variant is best in the row. Pure, so the table's numbers are tested
 * without rendering.
 */
import { exposedCommPerDeviceMs, type Simulation } from '@stagecraft/sim';
import { formatCount } from '../core/format.ts';

export const MAX_VARIANTS = 4;

/** Differences smaller than this fraction of the baseline count as equal (float noise, rounding). */
const SAME = 0.0005;

/** `none`: a fact of the variant (its batch), or a figure not comparable across them: no better, no best. */
export type Direction = 'lower' | 'higher' | 'none';
export type Verdict = 'baseline' | 'better' | 'worse' | 'same' | 'differs' | 'missing';

export interface MetricCell {
  value: number | undefined;
  /** value − baseline, when both exist. */
  delta: number | undefined;
  /** delta / baseline, when the baseline is not 0. */
  relative: number | undefined;
  verdict: Verdict;
  /**
   * The best value of its row (lowest, or highest for tokens/s), ties included; never set when
   * every variant has the same value, where there is no best to point at.
   */
  best: boolean;
}

export interface MetricRow {
  key: string;
  label: string;
  unit: 'ms' | 'ratio' | 'bytes' | 'tokens/s' | 'count';
  better: Direction;
  cells: MetricCell[];
  /** Set on the per-device rows, which the panel folds away when there are many devices. */
  device?: number;
}

interface Metric {
  key: string;
  label: string;
  unit: MetricRow['unit'];
  better: Direction;
  device?: number;
  /** The variant's value; `i`: its index among the variants. */
  of(sim: Simulation, i: number): number | undefined;
}

/** Tokens of one step, where the model gives them: tokens/s × step time. */
const tokensPerStep = (s: Simulation) =>
  s.tokensPerSecond === undefined ? undefined : (s.tokensPerSecond * s.makespanMs) / 1000;

/**
 * The rows of `sims` with differences taken against `sims[baseline]`. With `batches` (each
 * variant's microbatches per step), the table says what a step holds: its microbatches and tokens
 * where the model has them (in the step's label when all variants agree). When the batches differ
 * a step time is not ranked (a step of 16 microbatches is longer than one of 8 and no worse): rows
 * give each variant's microbatches, tokens and time per microbatch, which is ranked, as tokens/s
 * (throughput) is.
 */
export function compareRows(
  sims: readonly Simulation[],
  baseline = 0,
  batches?: readonly (number | undefined)[],
): MetricRow[] {
  const b = baseline >= 0 && baseline < sims.length ? baseline : 0;
  const devices = [...new Set(sims.flatMap((s) => s.devices.map((d) => d.device)))].sort((a, b) => a - b);
  const { step, rows: batchRows } = batchMetrics(sims, batches);
  const metrics: Metric[] = [
    step,
    ...batchRows,
    {
      key: 'bubble',
      label: 'bubble, of total (Σ idle / devices × step)',
      unit: 'ratio',
      better: 'lower',
      of: (s) => s.bubbleRatio,
    },
    {
      key: 'bubble-ideal',
      label: 'bubble, of ideal (Σ idle / Σ busy, Megatron)',
      unit: 'ratio',
      better: 'lower',
      of: (s) => s.bubbleOverIdeal,
    },
    {
      key: 'exposed-comm',
      label: 'exposed communication per GPU',
      unit: 'ms',
      better: 'lower',
      of: (s) => exposedCommPerDeviceMs(s),
    },
    {
      key: 'peak-memory',
      label: 'peak memory, highest device',
      unit: 'bytes',
      better: 'lower',
      of: (s) => (s.devices.length ? Math.max(...s.devices.map((d) => d.peakMemoryBytes)) : undefined),
    },
    ...devices.map(
      (device): Metric => ({
        key: `peak-memory-${device}`,
        label: `peak memory, device ${device}`,
        unit: 'bytes',
        better: 'lower',
        device,
        of: (s) => s.devices.find((d) => d.device === device)?.peakMemoryBytes,
      }),
    ),
    { key: 'tokens', label: 'tokens/s', unit: 'tokens/s', better: 'higher', of: (s) => s.tokensPerSecond },
  ];
  return metrics
    .filter((m) => m.key !== 'tokens' || sims.some((s) => s.tokensPerSecond !== undefined))
    .map((m) => {
      const values = sims.map((s, i) => m.of(s, i));
      const base = values[b];
      const best = bestOf(values, m.better);
      return {
        key: m.key,
        label: m.label,
        unit: m.unit,
        better: m.better,
        cells: values.map((value, i) => ({
          ...cell(value, base, m.better, i === b),
          best: best !== undefined && value !== undefined && same(value, best),
        })),
        ...(m.device !== undefined ? { device: m.device } : {}),
      };
    });
}

/** The step's metric and the rows that say what a step holds (see compareRows). */
function batchMetrics(
  sims: readonly Simulation[],
  batches: readonly (number | undefined)[] | undefined,
): { step: Metric; rows: Metric[] } {
  const known = (batches ?? []).filter((m): m is number => m !== undefined);
  const batchesDiffer = known.some((m) => m !== known[0]);
  const tokens = sims.map(tokensPerStep);
  const tokensDiffer = tokens.some((t) => t === undefined || !same(t, tokens[0]!));
  const batchOf = (_s: Simulation, i: number) => batches?.[i];
  // Equal batches are said once, in the step's label (four variants' rows fit one screen);
  // different ones get their rows.
  const perStep = [
    `${known[0]} microbatch${known[0] === 1 ? '' : 'es'}`,
    ...(tokensDiffer ? [] : [`${formatCount(tokens[0]!)} tokens`]),
  ].join(', ');
  const tokenRow: Metric = {
    key: 'tokens-per-step',
    label: 'tokens per step',
    unit: 'count',
    better: 'none',
    of: tokensPerStep,
  };
  const batchRows: Metric[] = !batches
    ? []
    : batchesDiffer
      ? [
          {
            key: 'time-per-microbatch',
            label: 'time per microbatch (step / microbatches)',
            unit: 'ms',
            better: 'lower',
            of: (s, i) => {
              const m = batchOf(s, i);
              return m ? s.makespanMs / m : undefined;
            },
          },
          { key: 'microbatches', label: 'microbatches per step', unit: 'count', better: 'none', of: batchOf },
          ...(tokens.some((t) => t !== undefined) ? [tokenRow] : []),
        ]
      : tokensDiffer && tokens.some((t) => t !== undefined)
        ? [tokenRow]
        : [];
  const step: Metric = batchesDiffer
    ? {
        key: 'step',
        label: 'step time (batches differ: ranked by time per microbatch)',
        unit: 'ms',
        better: 'none',
        of: (s) => s.makespanMs,
      }
    : {
        key: 'step',
        label: known.length > 0 ? `step time (${perStep})` : 'step time',
        unit: 'ms',
        better: 'lower',
        of: (s) => s.makespanMs,
      };
  return { step, rows: batchRows };
}

/** Equal up to float noise and rounding (SAME of the larger). */
function same(a: number, b: number): boolean {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 || Math.abs(a - b) <= SAME * scale;
}

/** The best value of a row, or undefined when fewer than two variants have one or all are the same. */
function bestOf(values: readonly (number | undefined)[], better: Direction): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  if (known.length < 2 || better === 'none') return undefined;
  const best = better === 'lower' ? Math.min(...known) : Math.max(...known);
  return known.every((v) => same(v, best)) ? undefined : best;
}

function cell(
  value: number | undefined,
  base: number | undefined,
  better: Direction,
  isBase: boolean,
): Omit<MetricCell, 'best'> {
  if (value === undefined) return { value, delta: undefined, relative: undefined, verdict: 'missing' };
  if (isBase) return { value, delta: undefined, relative: undefined, verdict: 'baseline' };
  if (base === undefined) return { value, delta: undefined, relative: undefined, verdict: 'missing' };
  const delta = value - base;
  const relative = base !== 0 ? delta / Math.abs(base) : undefined;
  const verdict: Verdict = same(value, base)
    ? 'same'
    : better === 'none'
      ? 'differs'
      : delta < 0 === (better === 'lower')
        ? 'better'
        : 'worse';
  return { value, delta, relative, verdict };
}
