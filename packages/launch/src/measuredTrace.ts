/**
 * The measured step as the predicted export draws it: the same processes (devices), threads
 * (streams) and ids, times from the run's shared monotonic clock, starting at the earliest start,
 * and the fingerprint of the plan run (`otherData.planFingerprint`).
 */
import { type Plan, planFingerprint } from '@stagecraft/ir';
import { chromeTrace, type TimelineEvent } from '@stagecraft/sim';
import type { MeasuredEvents } from './result.ts';

export function measuredTrace(plan: Plan, trace: MeasuredEvents): ReturnType<typeof chromeTrace> {
  const byId = new Map<string, Plan['devices'][number]['streams'][number]['instructions'][number]>();
  for (const d of plan.devices)
    for (const s of d.streams) for (const i of s.instructions) byId.set(`${d.device}|${i.id}`, i);
  let origin = Number.POSITIVE_INFINITY;
  for (const events of Object.values(trace)) for (const e of events) origin = Math.min(origin, e[2]);
  const timeline: TimelineEvent[] = [];
  let end = 0;
  for (const [rank, events] of Object.entries(trace))
    for (const [stream, id, start, stop] of events) {
      const ins = byId.get(`${rank}|${id}`);
      if (!ins) continue;
      const ev: TimelineEvent = {
        device: Number(rank),
        stream,
        id,
        op: ins.op,
        startMs: (start - origin) * 1000,
        endMs: (stop - origin) * 1000,
        tags: ins.tags,
      };
      if (ins.op === 'OVERLAP') ev.members = ins.members.map((m) => m.id);
      if (ins.op === 'SEND' || ins.op === 'RECV') ev.peer = ins.peer;
      if ('bytes' in ins) ev.bytes = ins.bytes;
      timeline.push(ev);
      end = Math.max(end, ev.endMs);
    }
  timeline.sort((a, b) => a.startMs - b.startMs);
  const sim = { makespanMs: end, timeline } as unknown as Parameters<typeof chromeTrace>[1];
  const drawn = chromeTrace(plan, sim);
  // The plan it measured, so a design of another plan refuses it (docs/measured.md).
  return { ...drawn, otherData: { ...drawn.otherData, planFingerprint: planFingerprint(plan) } };
}
