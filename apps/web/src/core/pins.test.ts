import type { Design } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import {
  addPinAction,
  MAX_PIN_NAME,
  MAX_PINS,
  microbatchesOf,
  type PinBoard,
  pinName,
  removePinAction,
  renamePinAction,
  setBaselineAction,
} from './pins.ts';

const design = example('1f1b-p4-m8');
const empty: PinBoard<string> = { pins: [], baseline: null, pinCount: 0 };

function pinned(n: number): PinBoard<string> {
  let board = empty;
  for (let k = 0; k < n; k++) {
    const out = addPinAction.perform(board, { design }, `result ${k}`);
    if (!out.ok) throw new Error(out.error);
    board = out.board;
  }
  return board;
}

describe('pin actions', () => {
  test('a design without a result is refused, and so is a pin beyond the fourth', () => {
    expect(addPinAction.perform(empty, { design }, null)).toEqual({
      ok: false,
      error: 'only a design that compiles can be pinned',
    });
    expect(addPinAction.perform(pinned(MAX_PINS), { design }, 'r')).toEqual({
      ok: false,
      error: 'at most 4 variants can be compared: unpin one first',
    });
  });

  test('a pin is named after its schedule and microbatches, a second of the same name numbered', () => {
    expect(pinned(2).pins.map((p) => p.name)).toEqual(['1F1B m=8', '1F1B m=8 #2']);
    const m16 = { ...design, directives: [{ op: 'schedule', builder: 'zb-h1', microbatches: 16 }] } as Design;
    expect(pinName(m16, [])).toBe('ZB-H1 m=16');
    expect(microbatchesOf(m16)).toBe(16);
  });

  test('ids are not reused after an unpin', () => {
    const out = removePinAction.perform(pinned(2), { id: 'pin-2' }, null);
    if (!out.ok) throw new Error(out.error);
    const again = addPinAction.perform(out.board, { design }, 'r');
    expect(again.ok && again.board.pins.map((p) => p.id)).toEqual(['pin-1', 'pin-3']);
  });

  test('renames are trimmed; an empty or overlong name is refused', () => {
    const board = pinned(1);
    const out = renamePinAction.perform(board, { id: 'pin-1', name: '  mine ' }, null);
    expect(out.ok && out.board.pins[0]!.name).toBe('mine');
    expect(renamePinAction.perform(board, { id: 'pin-1', name: ' ' }, null)).toEqual({
      ok: false,
      error: 'a pin needs a name',
    });
    expect(renamePinAction.perform(board, { id: 'pin-1', name: 'x'.repeat(MAX_PIN_NAME + 1) }, null)).toEqual(
      {
        ok: false,
        error: `a pin's name is at most ${MAX_PIN_NAME} characters`,
      },
    );
  });

  test('a baseline must be pinned, and removing it falls back to the first', () => {
    const board = pinned(2);
    expect(setBaselineAction.perform(board, { id: 'nope' }, null)).toEqual({ ok: true, board });
    const set = setBaselineAction.perform(board, { id: 'pin-2' }, null);
    if (!set.ok) throw new Error(set.error);
    const out = removePinAction.perform(set.board, { id: 'pin-2' }, null);
    expect(out.ok && out.board.baseline).toBeNull();
  });
});
