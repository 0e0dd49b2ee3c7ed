import type { Design } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import type { Session } from './action.ts';
import { pinAction, redoAction, saveAction, undoAction } from './actions.ts';
import { emptyHistory, type History, record } from './history.ts';

/** A session that only records what the actions asked of it. */
function fakeSession(design: Design, history: History) {
  const calls: string[] = [];
  const session: Session & { calls: string[] } = {
    design,
    history,
    calls,
    restore: (d, h) => {
      calls.push(`restore ${d.name} (${h.past.length} past, ${h.future.length} future)`);
    },
    save: () => {
      calls.push('save');
    },
    pin: () => {
      calls.push('pin');
    },
  };
  return session;
}

describe('undo, redo, save and pin as actions', () => {
  const before = example('1f1b-p4-m8');
  const after = { ...before, name: 'edited' };

  test('undo restores the design the last edit replaced, redo the one it undid', () => {
    const undoing = fakeSession(after, record(emptyHistory, before));
    undoAction.perform(undoing);
    expect(undoing.calls).toEqual([`restore ${before.name} (0 past, 1 future)`]);
    const redoing = fakeSession(before, { past: [], future: [after] });
    redoAction.perform(redoing);
    expect(redoing.calls).toEqual(['restore edited (1 past, 0 future)']);
  });

  test('with nothing to undo or redo, they change nothing', () => {
    const session = fakeSession(before, emptyHistory);
    undoAction.perform(session);
    redoAction.perform(session);
    expect(session.calls).toEqual([]);
  });

  test('save and pin ask the session to save and to pin', () => {
    const session = fakeSession(before, emptyHistory);
    saveAction.perform(session);
    pinAction.perform(session);
    expect(session.calls).toEqual(['save', 'pin']);
  });
});
