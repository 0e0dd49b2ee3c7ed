/**
 * The SEND→RECV flows of the selected op, as Perfetto draws the flows of a selected slice: a
 * SEND's or a RECV's own transfer, and for any other op the transfers whose RECV it waits for and
 * whose SEND waits for it. Drawing every transfer at once is a separate switch (showArrows).
 */
import type { GanttLayout, PlacedOp } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';

export type Flow = [send: PlacedOp, recv: PlacedOp];

/** One empty list for every op without flows: a new plan then repaints nothing. */
const NONE: readonly Flow[] = Object.freeze([]);

export function flowsOf(layout: GanttLayout, plan: PlanIndex, id: string | null): readonly Flow[] {
  if (id === null) return NONE;
  const selected = layout.ops[layout.byId.get(id) ?? -1];
  if (!selected) return NONE;
  const pairs: [string, string][] = [];
  const recvOf = plan.transfers;
  const ids = selected.ev.members ?? [selected.ev.id];
  const mine = new Set(ids);
  for (const [send, recv] of recvOf) {
    if (mine.has(send) || mine.has(recv)) {
      pairs.push([send, recv]);
      continue;
    }
    // The SEND waits for the op that produced what it sends; the consumer waits for the RECV.
    const s = plan.instruction(send);
    if (s?.waits.some((w) => mine.has(w))) pairs.push([send, recv]);
  }
  const sendOf = new Map<string, string>();
  for (const [send, recv] of recvOf) sendOf.set(recv, send);
  for (const m of ids)
    for (const w of plan.instruction(m)?.waits ?? []) {
      const send = sendOf.get(w);
      if (send !== undefined) pairs.push([send, w]);
    }
  const out: Flow[] = [];
  const seen = new Set<string>();
  for (const [send, recv] of pairs) {
    const key = `${send}>${recv}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const a = layout.ops[layout.byId.get(send) ?? -1];
    const b = layout.ops[layout.byId.get(recv) ?? -1];
    if (a && b) out.push([a, b]);
  }
  return out.length > 0 ? out : NONE;
}
