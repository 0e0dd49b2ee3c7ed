/**
 * A big result's timeline arrives in parts before the result (workerProtocol.ts, TIMELINE_PART),
 * so that no one message takes the page long to read: they are kept here until their result comes.
 */
import type { TimelineEvent } from '@stagecraft/sim';

export class TimelineParts {
  private revision = -1;
  private parts: TimelineEvent[][] = [];

  add(revision: number, events: TimelineEvent[]): void {
    if (revision !== this.revision) {
      this.revision = revision;
      this.parts = [];
    }
    this.parts.push(events);
  }

  /** The whole timeline of `revision` when all `count` parts came, else null; either way the parts go. */
  take(revision: number, count: number): TimelineEvent[] | null {
    const parts = this.parts;
    const complete = revision === this.revision && parts.length === count;
    this.parts = [];
    this.revision = -1;
    if (!complete) return null;
    const out: TimelineEvent[] = [];
    for (const p of parts) for (const ev of p) out.push(ev);
    return out;
  }
}
