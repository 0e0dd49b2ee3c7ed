/**
 * A measured step drawn as a timeline: the matched spans of one step as the simulator's
 * TimelineEvents, so a measured step renders with the same timeline component as a predicted one
 * and on the same time axis (both start at 0). The step shown is the first one comparisons read
 * (the first is warm-up when there are several). A replica's spans are left out: its device is
 * drawn by its representative, whose spans stand for it, as in the prediction.
 */
import type { Plan } from '@stagecraft/ir';
import type { TimelineEvent } from '@stagecraft/sim';
import type { MatchedSpan } from './matchPlan.ts';

export interface MeasuredTimeline {
  readonly step: number;
  /** From the step's origin; by start time. */
  readonly events: TimelineEvent[];
  /** End of the last event. */
  readonly makespanMs: number;
}

/**
 * With aligned clocks every device's times are from the step's first start over all devices;
 * without (legacy profiler), each device's from its own first start, since their skew is unknown.
 */
export function measuredTimeline(
  plan: Plan,
  matched: readonly MatchedSpan[],
  steps: readonly number[],
  alignedClocks: boolean,
): MeasuredTimeline {
  const step = steps[0] ?? 0;
  const drawn = new Set(plan.devices.map((d) => d.device));
  const spans = matched.filter((s) => s.step === step && drawn.has(s.device));
  const origin = new Map<number, number>();
  let first = Number.POSITIVE_INFINITY;
  for (const s of spans) {
    first = Math.min(first, s.startMs);
    origin.set(s.device, Math.min(origin.get(s.device) ?? Number.POSITIVE_INFINITY, s.startMs));
  }
  const events: TimelineEvent[] = spans.map((s) => {
    const o = alignedClocks ? first : origin.get(s.device)!;
    const ins = s.instruction;
    const e: TimelineEvent = {
      device: s.device,
      stream: s.stream,
      id: ins.id,
      op: ins.op,
      startMs: s.startMs - o,
      endMs: s.endMs - o,
      tags: ins.tags,
    };
    if (ins.op === 'OVERLAP') e.members = ins.members.map((m) => m.id);
    if ('peer' in ins) e.peer = ins.peer;
    if ('bytes' in ins && typeof ins.bytes === 'number') e.bytes = ins.bytes;
    return e;
  });
  events.sort((a, b) => a.startMs - b.startMs || a.device - b.device);
  const makespanMs = events.reduce((m, e) => Math.max(m, e.endMs), 0);
  return { step, events, makespanMs };
}
