/** Constructors for a rank's program, so builders read like the published schedule listings. */
import type { Action, ActionPass, Slot } from './builder.ts';

export function action(pass: ActionPass, stage: number, mb: number, dir?: 0 | 1): Action {
  return dir === undefined ? { stage, mb, pass } : { stage, mb, pass, dir };
}

/** A slot running one action alone. */
export function solo(a: Action): Slot {
  return [a];
}

/** DualPipe's F&B: a forward and a backward of different stages run as one overlapped unit. */
export function overlapped(forward: Action, backward: Action): Slot {
  return [forward, backward];
}
