import type { Design } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { expandSchedule } from './schedule.ts';

describe('the schedule macro in the editor', () => {
  const design = example('1f1b-p4-m8');

  test('expanding the schedule gives the same step as the macro, as editable directives', () => {
    const base = computed(design);
    const r = expandSchedule(design, 0, base.program);
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.map((d) => d.op)).toEqual([
      'split',
      'place',
      'place',
      'place',
      'place',
      'order',
      'order',
      'order',
      'order',
    ]);
    expect(computed(r.design).simulation.makespanMs).toBe(base.simulation.makespanMs);
  });

  test('expanding a schedule with edits writes them out into its orders: the same plan, no edits left', () => {
    const edited: Design = {
      ...design,
      directives: [
        {
          op: 'schedule',
          builder: '1f1b',
          microbatches: 8,
          edits: [
            { kind: 'move', op: { PP: 1, MB: 0, PASS: 'BW' }, after: { PP: 1, MB: 3, PASS: 'F' } },
            { kind: 'overlap', op: { PP: 3, MB: 0, PASS: 'B' } },
          ],
        },
        { op: 'split_backward', filter: { PP: 1 } },
      ],
    };
    const base = computed(edited);
    const r = expandSchedule(edited, 0, base.program);
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.map((d) => d.op)).toEqual([
      'split',
      ...Array<string>(4).fill('place'),
      ...Array<string>(4).fill('order'),
      'split_backward',
    ]);
    const after = computed(r.design);
    expect(JSON.stringify(after.plan)).toBe(JSON.stringify(base.plan));
    expect(after.simulation.makespanMs).toBe(base.simulation.makespanMs);
  });

  test('a schedule cannot be expanded without a compiled program', () => {
    const r = expandSchedule(design, 0, []);
    expect(r.ok).toBe(false);
  });
});
