/**
 * Every user operation on the design is one action: the palette, the keyboard, drag-and-drop and
 * the tests all call the same `perform`. An action either returns the next design or a reason it
 * was refused; it never mutates its input.
 */
import type { Design } from '@stagecraft/ir';

export type Outcome = { ok: true; design: Design; select?: number } | { ok: false; error: string };

export interface Action<A> {
  readonly name: string;
  /** `record` enters undo history; `replace` starts a new document (history is cleared). */
  readonly history: 'record' | 'replace';
  perform(design: Design, args: A): Outcome;
}

export function action<A>(
  name: string,
  perform: (design: Design, args: A) => Outcome,
  history: 'record' | 'replace' = 'record',
): Action<A> {
  return { name, history, perform };
}

export function refused(error: string): Outcome {
  return { ok: false, error };
}
