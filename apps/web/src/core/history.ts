/** Undo/redo over designs: every recorded edit pushes the design it replaced. */
import type { Design } from '@stagecraft/ir';

export interface History {
  readonly past: readonly Design[];
  readonly future: readonly Design[];
}

const LIMIT = 200;

export const emptyHistory: History = { past: [], future: [] };

export function record(h: History, before: Design): History {
  const past = h.past.length >= LIMIT ? h.past.slice(1) : h.past.slice();
  past.push(before);
  return { past, future: [] };
}

export function undo(h: History, current: Design): { history: History; design: Design } | null {
  const prev = h.past[h.past.length - 1];
  if (!prev) return null;
  return { history: { past: h.past.slice(0, -1), future: [current, ...h.future] }, design: prev };
}

export function redo(h: History, current: Design): { history: History; design: Design } | null {
  const next = h.future[0];
  if (!next) return null;
  return { history: { past: [...h.past, current], future: h.future.slice(1) }, design: next };
}
