/**
 * Every user operation is one action: the palette, the toolbar, the keyboard, drag-and-drop and
 * the tests all call the same `perform`. An edit returns the next design or a reason it was
 * refused, and never mutates its input. Undo, redo, save and pin are not edits of the design but
 * of the session around it (its history, its saved copy, its pins): they perform on a Session
 * instead, which the store provides, so they too stay free of React and zustand. The compare tab's
 * pins are edited by actions of their own, on the pin board (pins.ts).
 */
import type { Design } from '@stagecraft/ir';
import type { SweepAxis } from '@stagecraft/planner/sweep';
import type { History } from './history.ts';
import type { PlanSearchRequest } from './planForm.ts';

/**
 * What an edit did. `notice` tells what it changed beyond what was asked (directives it adapted
 * or removed), so nothing goes without a word. A refusal with `confirm` is one the user may
 * overrule: performed again with `confirmed: true`, the action goes ahead.
 */
export type Outcome =
  | { ok: true; design: Design; select?: number; notice?: string }
  | { ok: false; error: string; confirm?: Confirmation };

/** A question an action asks before it goes ahead, e.g. before it drops hand-made work. */
export interface Confirmation {
  title: string;
  message: string;
  /** What would be lost, one line each. */
  items: string[];
  /** The label of the button that goes ahead. */
  accept: string;
  /**
   * For a question with several answers (which mesh axis a directive runs over): one button
   * each, instead of `accept`; the action is performed again with the chosen `value` as `choice`.
   */
  choices?: readonly { value: string; label: string }[];
}

/** Arguments of an action that may ask first: `confirmed` once the user said yes. */
export interface Confirmable {
  confirmed?: boolean;
  /** The answer picked among the question's `choices`. */
  choice?: string;
}

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

/** What session actions act on: the design with its undo history, and the session's own commands. */
export interface Session {
  readonly design: Design;
  readonly history: History;
  /** Puts back a design from the history: a change like any other (recomputed, saved), not recorded. */
  restore(design: Design, history: History): void;
  /** Saves the design now instead of after the pause in editing. */
  save(): void;
  /** Pins the current result for comparison, or says why it cannot be. */
  pin(name?: string): void;
}

/**
 * A key chord as the keyboard reads it: `Mod+` (Ctrl, or ⌘ on a Mac), then `Shift+` if held, then
 * the key in capitals, e.g. `Mod+Shift+Z`.
 */
export type KeyChord = string;

export interface SessionAction<A = void> {
  readonly name: string;
  /** Chords that perform it with no arguments. */
  readonly keys: readonly KeyChord[];
  /** Whether its keys apply while typing in a text field (where Ctrl+Z is the field's own undo). */
  readonly inTextFields: boolean;
  perform(session: Session, args: A): void;
}

export function sessionAction<A = void>(
  name: string,
  keys: readonly KeyChord[],
  perform: (session: Session, args: A) => void,
  inTextFields = false,
): SessionAction<A> {
  return { name, keys, inTextFields, perform };
}

/** Which of a design's figures a sweep varies: its microbatch count or its pipeline stages. */
export type { SweepAxis };

/**
 * What the planner panel's actions act on: the design as it is now, and the planner's commands
 * (a layout search on the API, a sweep off the page's thread, a layout of the front opened).
 */
export interface PlannerSession {
  readonly design: Design;
  /** A search is running (or stopping): the panel runs one at a time. */
  readonly searching: boolean;
  startSearch(request: PlanSearchRequest): void;
  cancelSearch(): void;
  runSweep(axis: SweepAxis, values: number[]): void;
  /** Opens `design` in the designer (undoable); with `pin`, pins it to compare once it is computed. */
  openLayout(design: Design, label: string, pin: boolean): void;
  /** Says why an operation was refused (the page's notice). */
  refuse(error: string): void;
}

export interface PlannerAction<A> {
  readonly name: string;
  perform(session: PlannerSession, args: A): void;
}

export function plannerAction<A>(
  name: string,
  perform: (session: PlannerSession, args: A) => void,
): PlannerAction<A> {
  return { name, perform };
}

export function refused(error: string): Outcome {
  return { ok: false, error };
}
