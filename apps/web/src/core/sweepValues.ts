/**
 * The sweep view's values as typed ("1, 2, 4, 8" or "2-8") to the whole numbers the planner's
 * sweep recompiles the design at, or why they cannot be.
 */

/** Points one sweep compiles at most: each is a compile + simulate of the whole design. */
export const MAX_SWEEP_POINTS = 16;

export type SweepValuesOutcome = { ok: true; values: number[] } | { ok: false; error: string };

export function parseSweepValues(text: string): SweepValuesOutcome {
  const values: number[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (from < 1 || to < from) return { ok: false, error: `values: "${part}" is not a range from 1 up` };
      if (to - from + 1 > MAX_SWEEP_POINTS)
        return { ok: false, error: `values: "${part}" has more than ${MAX_SWEEP_POINTS} values` };
      for (let v = from; v <= to; v++) values.push(v);
      continue;
    }
    const n = Number(part);
    if (!Number.isInteger(n) || n < 1)
      return { ok: false, error: `values: "${part}" is not a whole number from 1 up` };
    values.push(n);
  }
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  if (distinct.length === 0) return { ok: false, error: 'values: give at least one, e.g. "1, 2, 4, 8"' };
  if (distinct.length > MAX_SWEEP_POINTS)
    return {
      ok: false,
      error: `values: at most ${MAX_SWEEP_POINTS} points in one sweep, not ${distinct.length}`,
    };
  return { ok: true, values: distinct };
}
