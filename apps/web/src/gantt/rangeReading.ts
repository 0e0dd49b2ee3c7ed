/**
 * What a range dragged on the time axis reads: its duration and the bubble inside it, by the
 * metric bar's definition (packages/sim, `bubbleRatio`) cut to the range: the idle time of the
 * compute of every device the design uses, as a share of devices × duration. A group lowered once
 * counts for each device it stands for, as in the metric; idle communication lanes and GPUs no
 * group holds are not bubble. So a user can measure the warm-up, the steady state or the drain of
 * a schedule as in Perfetto, and the whole step reads the metric.
 */
import type { GanttLayout } from './layout.ts';
import type { TimelinePlan } from './timelinePlan.ts';

export interface RangeReading {
  t0: number;
  t1: number;
  durationMs: number;
  /** Σ over the devices the design uses of their compute's idle time within the range. */
  idleMs: number;
  /** idleMs / (devices × durationMs): 0 when every device computes throughout. */
  bubbleRatio: number;
  /** Devices the design uses, each member of a group lowered once counted. */
  devices: number;
}

/** How many devices each drawn device counts for: its replicas too, none when no group holds it. */
function deviceWeights(layout: GanttLayout, plan: TimelinePlan): Map<number, number> {
  const planned = new Map(plan.devices.map((d) => [d.device, d]));
  const weights = new Map<number, number>();
  for (const band of layout.bands) {
    if (!band.lanes.some((l) => l.compute)) continue;
    const d = planned.get(band.device);
    weights.set(band.device, d?.group !== undefined && d.group < 0 ? 0 : 1 + (d?.replicas?.length ?? 0));
  }
  return weights;
}

export function readRange(layout: GanttLayout, plan: TimelinePlan, a: number, b: number): RangeReading {
  const t0 = Math.max(0, Math.min(a, b));
  const t1 = Math.min(layout.makespanMs, Math.max(a, b));
  const durationMs = Math.max(0, t1 - t0);
  const weights = deviceWeights(layout, plan);
  let idleMs = 0;
  for (const bubble of layout.bubbles) {
    const w = weights.get(bubble.device) ?? 0;
    const s = Math.max(t0, bubble.startMs);
    const e = Math.min(t1, bubble.endMs);
    if (w > 0 && e > s) idleMs += (e - s) * w;
  }
  let devices = 0;
  for (const w of weights.values()) devices += w;
  const whole = devices * durationMs;
  return { t0, t1, durationMs, idleMs, bubbleRatio: whole > 0 ? idleMs / whole : 0, devices };
}
