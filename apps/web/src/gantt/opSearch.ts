/**
 * Finding an op by its instruction id, as typed in the timeline's search box: the exact id first,
 * then ids that contain the text (case aside), earliest first, so "F.b3.mb1" and "b3.mb1" both land.
 */
import type { TimelineEvent } from '@stagecraft/sim';

export interface OpMatch {
  /** The id to select: an overlapped unit's member when the text named one. */
  id: string;
  /** The event that holds it. */
  event: TimelineEvent;
  /** How many ops match the text. */
  count: number;
}

export function findOp(events: readonly TimelineEvent[], text: string): OpMatch | null {
  const query = text.trim();
  if (query === '') return null;
  const lower = query.toLowerCase();
  let first: { id: string; event: TimelineEvent } | null = null;
  let count = 0;
  for (const event of events) {
    const ids = event.members ? [event.id, ...event.members] : [event.id];
    for (const id of ids) {
      if (id === query) return { id, event, count: 1 };
      if (id.toLowerCase().includes(lower)) {
        count++;
        if (!first || event.startMs < first.event.startMs) first = { id, event };
      }
    }
  }
  return first ? { ...first, count } : null;
}
