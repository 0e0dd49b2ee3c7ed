import type { Design } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { deleteDirective, insertDirective, moveDirective, toggleDirective } from './program.ts';

function withThree(): Design {
  let d = example('1f1b-p4-m8');
  d = insertDirective(d, { op: 'split_backward', filter: { PP: 1 } });
  return insertDirective(d, { op: 'recompute', filter: { PP: 2 } });
}

describe('program list', () => {
  test('moving a directive puts it at the target index and keeps the others in order', () => {
    const d = moveDirective(withThree(), 2, 0);
    expect(d.directives.map((x) => x.op)).toEqual(['recompute', 'schedule', 'split_backward']);
  });

  test('toggling sets enabled to false and back, without deleting the directive', () => {
    const off = toggleDirective(withThree(), 1);
    expect(off.directives[1]!.enabled).toBe(false);
    const on = toggleDirective(off, 1);
    expect('enabled' in on.directives[1]!).toBe(false);
    expect(on.directives).toHaveLength(3);
  });

  test('deleting removes exactly that directive', () => {
    const d = deleteDirective(withThree(), 1);
    expect(d.directives.map((x) => x.op)).toEqual(['schedule', 'recompute']);
  });

  test('edits never change the design they start from', () => {
    const d = withThree();
    const before = JSON.stringify(d);
    moveDirective(d, 0, 2);
    toggleDirective(d, 0);
    deleteDirective(d, 0);
    expect(JSON.stringify(d)).toBe(before);
  });
});
