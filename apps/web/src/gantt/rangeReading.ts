/**
 * What a range dragged on the time axis reads: its duration and the bubble inside it (the idle
 * time of every device's compute within the range, as a share of devices × duration), so a user
 * can measure the warm-up, the steady state or the drain of a schedule as in Perfetto.
 */
import type { GanttLayout } from './layout.ts';

export interface RangeReading {
  t0: number;
  t1: number;
  durationMs: number;
  /** Σ over devices of their compute's idle time within the range. */
  idleMs: number;
  /** idleMs / (devices × durationMs): 0 when every device computes throughout. */
  bubbleRatio: number;
  devices: number;
}

export function readRange(layout: GanttLayout, a: number, b: number): RangeReading {
  const t0 = Math.max(0, Math.min(a, b));
  const t1 = Math.min(layout.makespanMs, Math.max(a, b));
  const durationMs = Math.max(0, t1 - t0);
  let idleMs = 0;
  for (const bubble of layout.bubbles) {
    const s = Math.max(t0, bubble.startMs);
    const e = Math.min(t1, bubble.endMs);
    if (e > s) idleMs += e - s;
  }
  const devices = layout.bands.filter((band) => band.lanes.some((l) => l.compute)).length;
  const whole = devices * durationMs;
  return { t0, t1, durationMs, idleMs, bubbleRatio: whole > 0 ? idleMs / whole : 0, devices };
}
