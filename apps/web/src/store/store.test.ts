import { beforeEach, describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import {
  addDirectiveAction,
  deleteDirectiveAction,
  pinAction,
  redoAction,
  toggleDirectiveAction,
  undoAction,
} from '../core/actions.ts';
import { initStore, MAX_PINS, useStore } from './index.ts';
import { performSession } from './session.ts';

describe('the store commands', () => {
  beforeEach(() => initStore(example('1f1b-p4-m8')));

  test('every dispatched edit is undone and redone in order', () => {
    const s = () => useStore.getState();
    s().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: { PP: 1 } } });
    s().dispatch(toggleDirectiveAction, { index: 1 });
    s().dispatch(deleteDirectiveAction, { index: 0 });
    expect(s().design.directives).toEqual([{ op: 'recompute', filter: { PP: 1 }, enabled: false }]);
    performSession(undoAction);
    performSession(undoAction);
    expect(s().design.directives.map((d) => d.op)).toEqual(['schedule', 'recompute']);
    expect(s().design.directives[1]!.enabled).toBeUndefined();
    performSession(redoAction);
    expect(s().design.directives[1]!.enabled).toBe(false);
    expect(s().history.future).toHaveLength(1);
  });

  test('an edit bumps the revision and marks the design for saving', () => {
    const before = useStore.getState().revision;
    useStore.getState().dispatch(addDirectiveAction, { directive: { op: 'recompute', filter: {} } });
    expect(useStore.getState().revision).toBe(before + 1);
    expect(useStore.getState().saveStatus).toBe('dirty');
    expect(useStore.getState().selectedDirective).toBe(1);
  });

  test('a refused action changes nothing and says why', () => {
    const design = useStore.getState().design;
    const refused = useStore
      .getState()
      .dispatch(
        { name: 'refuse', history: 'record', perform: () => ({ ok: false, error: 'not on this device' }) },
        {},
      );
    expect(refused).toBe(false);
    expect(useStore.getState().notice).toEqual({ kind: 'error', text: 'not on this device' });
    expect(useStore.getState().design).toBe(design);
    expect(useStore.getState().history.past).toHaveLength(0);
  });

  test('only a design with a result can be pinned, and at most four', () => {
    performSession(pinAction);
    expect(useStore.getState().pins).toHaveLength(0);
    expect(useStore.getState().notice?.text).toMatch(/compiles/);
    expect(MAX_PINS).toBe(4);
  });
});
