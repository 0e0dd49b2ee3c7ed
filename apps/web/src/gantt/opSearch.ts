/**
 * Finding ops by instruction id, as typed in the timeline's search box: the exact id, else every
 * id that contains the text (case aside), earliest first, so "F.b3.mb1" and "b3.mb1" both land and
 * the box steps through the rest (next, previous: "3 of 397").
 */
import type { TimelineEvent } from '@stagecraft/sim';

/** One op a search matched: the id to select and the event holding it. */
export interface OpHit {
  id: string;
  event: TimelineEvent;
}

/**
 * Every op the text matches, in the order the search steps through them: the exact id alone when
 * there is one, else every id containing the text (case aside), by start time, then device.
 */
export function findOps(events: readonly TimelineEvent[], text: string): OpHit[] {
  const query = text.trim();
  if (query === '') return [];
  const lower = query.toLowerCase();
  const hits: OpHit[] = [];
  for (const event of events) {
    const ids = event.members ? [event.id, ...event.members] : [event.id];
    for (const id of ids) {
      if (id === query) return [{ id, event }];
      if (id.toLowerCase().includes(lower)) hits.push({ id, event });
    }
  }
  return hits.sort((a, b) => a.event.startMs - b.event.startMs || a.event.device - b.event.device);
}
