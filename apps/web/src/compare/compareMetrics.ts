/**
 * The compare table as data: one row per metric, one cell per variant, each cell's difference
 * against the first (baseline) variant and whether that difference is an improvement. Pure, so
 * the table's numbers are tested without rendering.
 */
import { exposedCommPerDeviceMs, type Simulation } from '@stagecraft/sim';

export const MAX_VARIANTS = 4;

/** Differences smaller than this fraction of the baseline count as equal (float noise, rounding). */
const SAME = 0.0005;

export type Direction = 'lower' | 'higher';
export type Verdict = 'baseline' | 'better' | 'worse' | 'same' | 'missing';

export interface MetricCell {
  value: number | undefined;
  /** value − baseline, when both exist. */
  delta: number | undefined;
  /** delta / baseline, when the baseline is not 0. */
  relative: number | undefined;
  verdict: Verdict;
}

export interface MetricRow {
  key: string;
  label: string;
  unit: 'ms' | 'ratio' | 'bytes' | 'tokens/s';
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
  of(sim: Simulation): number | undefined;
}

export function compareRows(sims: readonly Simulation[]): MetricRow[] {
  const devices = [...new Set(sims.flatMap((s) => s.devices.map((d) => d.device)))].sort((a, b) => a - b);
  const metrics: Metric[] = [
    { key: 'step', label: 'step time', unit: 'ms', better: 'lower', of: (s) => s.makespanMs },
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
      const values = sims.map(m.of);
      const base = values[0];
      return {
        key: m.key,
        label: m.label,
        unit: m.unit,
        better: m.better,
        cells: values.map((value, i) => cell(value, base, m.better, i === 0)),
        ...(m.device !== undefined ? { device: m.device } : {}),
      };
    });
}

function cell(
  value: number | undefined,
  base: number | undefined,
  better: Direction,
  isBase: boolean,
): MetricCell {
  if (value === undefined) return { value, delta: undefined, relative: undefined, verdict: 'missing' };
  if (isBase) return { value, delta: undefined, relative: undefined, verdict: 'baseline' };
  if (base === undefined) return { value, delta: undefined, relative: undefined, verdict: 'missing' };
  const delta = value - base;
  const relative = base !== 0 ? delta / Math.abs(base) : undefined;
  const scale = Math.max(Math.abs(base), Math.abs(value));
  const same = scale === 0 || Math.abs(delta) <= SAME * scale;
  const verdict: Verdict = same ? 'same' : delta < 0 === (better === 'lower') ? 'better' : 'worse';
  return { value, delta, relative, verdict };
}
