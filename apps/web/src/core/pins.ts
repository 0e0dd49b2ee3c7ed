/**
 * The compare tab's pins: taking one, naming it, dropping it and choosing the baseline are actions
 * like the design's edits (action.ts), pure functions of the pin board that return the next board
 * or a reason they were refused, so the store, the toolbar and the tests share one rule for each.
 * Generic in the result a pin holds: the page pins its result view, tests anything.
 */
import type { Design } from '@stagecraft/ir';
import { BUILDER_TITLES } from './scheduleName.ts';

export interface Pin<R> {
  id: string;
  name: string;
  design: Design;
  result: R;
}

export interface PinBoard<R> {
  pins: Pin<R>[];
  /** The pin the others are compared against (its id); the first pin when null or unpinned. */
  baseline: string | null;
  /** Pins taken so far: ids are never reused, so a baseline never names a later pin by mistake. */
  pinCount: number;
}

export type PinsOutcome<R> = { ok: true; board: PinBoard<R> } | { ok: false; error: string };

export interface PinsAction<A> {
  readonly name: string;
  /** `result`: the result of the design as it is now, null while it has none (pending, or errors). */
  perform<R>(board: PinBoard<R>, args: A, result: R | null): PinsOutcome<R>;
}

/** At most this many variants side by side: four timelines fit one screen in Compare. */
export const MAX_PINS = 4;

/** Longest pin name: it heads a column of the compare table. */
export const MAX_PIN_NAME = 60;

export const addPinAction: PinsAction<{ design: Design; name?: string | undefined }> = {
  name: 'add-pin',
  perform(board, a, result) {
    if (result === null) return { ok: false, error: 'only a design that compiles can be pinned' };
    if (board.pins.length >= MAX_PINS)
      return { ok: false, error: `at most ${MAX_PINS} variants can be compared: unpin one first` };
    const pinCount = board.pinCount + 1;
    const pin = {
      id: `pin-${pinCount}`,
      name: a.name ?? pinName(a.design, board.pins),
      design: a.design,
      result,
    };
    return { ok: true, board: { ...board, pins: [...board.pins, pin], pinCount } };
  },
};

export const removePinAction: PinsAction<{ id: string }> = {
  name: 'remove-pin',
  perform(board, a) {
    return {
      ok: true,
      board: {
        ...board,
        pins: board.pins.filter((p) => p.id !== a.id),
        baseline: board.baseline === a.id ? null : board.baseline,
      },
    };
  },
};

/** An empty name is refused: a column needs a heading. */
export const renamePinAction: PinsAction<{ id: string; name: string }> = {
  name: 'rename-pin',
  perform(board, a) {
    const label = a.name.trim();
    if (label === '') return { ok: false, error: 'a pin needs a name' };
    if (label.length > MAX_PIN_NAME)
      return { ok: false, error: `a pin's name is at most ${MAX_PIN_NAME} characters` };
    return {
      ok: true,
      board: { ...board, pins: board.pins.map((p) => (p.id === a.id ? { ...p, name: label } : p)) },
    };
  },
};

/** A baseline that is not pinned leaves the board as it is. */
export const setBaselineAction: PinsAction<{ id: string }> = {
  name: 'set-baseline',
  perform(board, a) {
    return { ok: true, board: board.pins.some((p) => p.id === a.id) ? { ...board, baseline: a.id } : board };
  },
};

/** The design's enabled schedule directive, if it has one. */
function scheduleOf(design: Design) {
  const sched = design.directives.find((d) => d.op === 'schedule' && d.enabled !== false);
  return sched?.op === 'schedule' ? sched : undefined;
}

/** Microbatches of one step: what a step time is the time of (undefined without a schedule). */
export function microbatchesOf(design: Design): number | undefined {
  return scheduleOf(design)?.microbatches;
}

/**
 * A pin is named after what distinguishes it: the schedule as the palette names it and its
 * microbatches ("1F1B m=8"), and the directives added to it.
 */
export function pinName(design: Design, pins: readonly Pin<unknown>[]): string {
  const sched = scheduleOf(design);
  const parts = [sched ? `${BUILDER_TITLES[sched.builder]} m=${sched.microbatches}` : design.name];
  const extra = design.directives.filter((d) => d.op !== 'schedule' && d.enabled !== false);
  const kinds = [...new Set(extra.map((d) => d.op))];
  if (kinds.length) parts.push(`+ ${kinds.join(', ')}`);
  const name = parts.join(' ');
  return pins.some((p) => p.name === name) ? `${name} #${pins.length + 1}` : name;
}
