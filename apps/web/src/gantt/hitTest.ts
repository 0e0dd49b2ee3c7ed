/**
 * What lies under a point of the timeline, in content coordinates (time for x, pixels for y), so
 * SVG and canvas rendering answer pointer gestures the same way.
 */
import { type GanttLayout, opsInWindow } from './layout.ts';

/** The op under a point (time, pixel y), or -1. */
export function opAt(layout: GanttLayout, t: number, y: number, slackMs = 0): number {
  const lane = layout.lanes.find((l) => y >= l.top && y < l.top + l.height);
  if (!lane) return -1;
  let best = -1;
  for (const i of opsInWindow(layout, lane, t - slackMs, t + slackMs)) {
    const o = layout.ops[i]!;
    if (y < o.y || y >= o.y + o.h) continue;
    if (o.ev.startMs - slackMs <= t && t <= o.ev.endMs + slackMs) best = i;
  }
  return best;
}

/** The op of the lane at `y` nearest to time `t` (for an op released in a gap), or -1. */
export function nearestInLane(layout: GanttLayout, t: number, y: number): number {
  const lane = layout.lanes.find((l) => y >= l.top && y < l.top + l.height);
  if (!lane) return -1;
  let best = -1;
  let gap = Number.POSITIVE_INFINITY;
  for (const i of lane.ops) {
    const ev = layout.ops[i]!.ev;
    const d = t < ev.startMs ? ev.startMs - t : t > ev.endMs ? t - ev.endMs : 0;
    if (d < gap) {
      gap = d;
      best = i;
    }
  }
  return best;
}

/** The idle span (bubble) at time `t` in the compute lane at `y`, or -1. */
export function bubbleAt(layout: GanttLayout, t: number, y: number): number {
  return layout.bubbles.findIndex((b, i) => {
    const lane = layout.lanes[layout.bubbleLane[i]!];
    return !!lane && y >= lane.top && y < lane.top + lane.height && t >= b.startMs && t <= b.endMs;
  });
}
