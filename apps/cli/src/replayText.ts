/** Predicted against measured, as text: the step row, unmatched spans and the divergence list. */
import type { PlanMatch, Replay } from '@stagecraft/measure';
import { formatMs, table } from './format.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(1)}%` : '-');

export function replayTable(rows: readonly (readonly [string, Replay])[]): string {
  return table(
    ['', 'predicted step', 'measured step', 'error', 'op error p50 / p90'],
    rows.map(([label, r]) => [
      label,
      formatMs(r.predictedStepMs),
      formatMs(r.measuredStepMs),
      pct(r.stepErrorPct),
      `${r.opErrorPct.p50.toFixed(1)}% / ${r.opErrorPct.p90.toFixed(1)}%`,
    ]),
  );
}

/**
 * The steps a comparison read, as a user reads them: `1, 2, 3` or, for a long run, `1–99,999`
 * (steadySteps reads a contiguous run; a trace of 100,000 steps once printed every number).
 */
export function stepsText(steps: readonly number[]): string {
  const contiguous = steps.every((s, i) => i === 0 || s === steps[i - 1]! + 1);
  if (steps.length <= 4 || !contiguous)
    return steps.slice(0, 20).join(', ') + (steps.length > 20 ? ', …' : '');
  return `${steps[0]!.toLocaleString('en-US')}–${steps.at(-1)!.toLocaleString('en-US')}`;
}

/** Spans of the trace that the plan does not have: a mistyped record_function name shows here. */
export function unmatchedLine(match: PlanMatch): string | undefined {
  const u = match.unmatched;
  if (u.length === 0) return undefined;
  const shown = u.slice(0, 10).map((s) => `device ${s.device} ${s.id}`);
  return `spans not in the plan (${u.length}): ${shown.join(', ')}${u.length > 10 ? ', …' : ''}`;
}

export function divergenceTable(r: Replay, heading: string, top = 10): string[] {
  const rows = r.divergences.slice(0, top);
  if (rows.length === 0) return [];
  return [
    heading,
    table(
      ['device', 'instruction', 'start', 'duration'],
      rows.map((d) => [
        String(d.device),
        d.id,
        `${formatMs(d.predictedStartMs)} → ${formatMs(d.measuredStartMs)}`,
        `${formatMs(d.predictedMs)} → ${formatMs(d.measuredMs)}`,
      ]),
    ),
  ];
}
