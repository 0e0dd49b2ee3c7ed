import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { expandSchedule, setSchedule } from './schedule.ts';

describe('the schedule macro in the editor', () => {
  const design = example('1f1b-p4-m8');

  test('switching 1F1B to DualPipeV on 4 ranks recuts the model into 8 stages of half the cost', () => {
    const r = setSchedule(design, 'dualpipev');
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives[0]).toEqual({ op: 'schedule', builder: 'dualpipev', microbatches: 8 });
    expect(r.design.model).toMatchObject({ stages: 8, costs: { F: 0.5, BI: 0.5, BW: 0.5 } });
    const before = computed(design).simulation.makespanMs;
    const after = computed(r.design).simulation.makespanMs;
    expect(after).not.toBe(before);
    expect(after).toBeLessThan(before);
  });

  test('switching to a builder whose stages already fit keeps the model', () => {
    const r = setSchedule(design, 'gpipe');
    if (!r.ok) throw new Error(r.error);
    expect(r.design.model).toBe(design.model);
    expect(computed(r.design).simulation.makespanMs).toBe(33);
  });

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

  test('switching back from an expanded schedule replaces its split, place and order', () => {
    const expanded = expandSchedule(design, 0, computed(design).program);
    if (!expanded.ok) throw new Error(expanded.error);
    const r = setSchedule(expanded.design, 'zb-h1');
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives).toEqual([{ op: 'schedule', builder: 'zb-h1', microbatches: 8 }]);
  });
});
