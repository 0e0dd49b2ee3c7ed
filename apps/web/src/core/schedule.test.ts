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

  test('a schedule cannot be expanded without a compiled program', () => {
    const r = expandSchedule(design, 0, []);
    expect(r.ok).toBe(false);
  });
});
