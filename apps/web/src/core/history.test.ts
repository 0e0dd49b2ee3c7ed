import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { emptyHistory, record, redo, undo } from './history.ts';
import { toggleDirective } from './program.ts';

describe('undo and redo', () => {
  test('undo returns the design before the edit and redo the edit again', () => {
    const a = example('1f1b-p4-m8');
    const b = toggleDirective(a, 0);
    const h = record(emptyHistory, a);
    const u = undo(h, b)!;
    expect(u.design).toBe(a);
    const r = redo(u.history, u.design)!;
    expect(r.design).toBe(b);
    expect(undo(r.history, r.design)!.design).toBe(a);
  });

  test('a new edit after an undo drops the redo branch', () => {
    const a = example('1f1b-p4-m8');
    const b = toggleDirective(a, 0);
    const u = undo(record(emptyHistory, a), b)!;
    const h = record(u.history, u.design);
    expect(h.future).toHaveLength(0);
    expect(redo(h, a)).toBeNull();
  });

  test('nothing to undo on a fresh document', () => {
    expect(undo(emptyHistory, example('1f1b-p4-m8'))).toBeNull();
  });
});
