import { fusedBackwardIn, splitOrderBackward } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { run } from '../../test/simulatedExamples.ts';
import { computed, example } from '../../test/testDesigns.ts';
import { handOrders } from './handOrders.ts';
import { dropItem } from './palette.ts';
import { moveOp } from './reorder.ts';
import { expandSchedule } from './schedule.ts';

function expanded(name: string) {
  const design = example(name);
  const r = expandSchedule(design, 0, computed(design).program);
  if (!r.ok) throw new Error(r.error);
  return r.design;
}

describe('telling hand-edited orders from a builder’s', () => {
  test('the orders an expanded schedule stands for are a builder’s', () => {
    expect(handOrders(expanded('1f1b-p4-m8'))).toEqual([]);
    expect(handOrders(expanded('interleaved-1f1b-p4-v2-m8'))).toEqual([]);
    expect(handOrders(expanded('dualpipe-p4-m8'))).toEqual([]);
  });

  test('orders of an expanded schedule stay a builder’s after a split_backward drop, or with its halves written out', () => {
    const design = expanded('1f1b-p4-m8');
    const r = dropItem(
      design,
      'split_backward',
      { id: 'B.b2.mb0', tags: { PP: 2, MB: 0, PASS: 'B' } },
      computed(design).program,
    );
    if (!r.ok) throw new Error(r.error);
    expect(handOrders(r.design)).toEqual([]);
    // Expand writes a rank some schedule edit touched with its halves out: still the builder's.
    const compact = { ...example('1f1b-p4-m8') };
    compact.directives = [...compact.directives, { op: 'split_backward', filter: { PP: 2 } }];
    const again = expandSchedule(compact, 0, computed(compact).program);
    if (!again.ok) throw new Error(again.error);
    const written = again.design.directives.map((d, i) =>
      i === 7 && d.op === 'order'
        ? { ...d, filters: splitOrderBackward(d.filters, fusedBackwardIn([{ PP: 2 }]))! }
        : d,
    );
    expect(handOrders({ ...again.design, directives: written })).toEqual([]);
  });

  test('the order of a device reordered on the timeline is a hand edit, the others are not', () => {
    const design = expanded('1f1b-p4-m8');
    const moved = moveOp(design, run(design).compiled, {
      op: 'F.b1.mb2',
      target: 'F.b1.mb1',
      position: 'before',
    });
    if (!moved.ok) throw new Error(moved.reason);
    expect(handOrders(moved.design)).toEqual([6]);
  });

  test('an overlap slot dropped by hand makes its order a hand edit', () => {
    const design = expanded('1f1b-p4-m8');
    const r = dropItem(
      design,
      'overlap',
      { id: 'F.b3.mb1', tags: { PP: 3, MB: 1, PASS: 'F' } },
      computed(design).program,
    );
    if (!r.ok) throw new Error(r.error);
    expect(handOrders(r.design)).toEqual([8]);
  });

  test('a switched-off order is the user’s own', () => {
    const design = expanded('1f1b-p4-m8');
    const off = {
      ...design,
      directives: design.directives.map((d, i) => (i === 5 ? { ...d, enabled: false } : d)),
    };
    expect(handOrders(off)).toEqual([5]);
  });
});
