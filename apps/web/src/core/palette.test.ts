import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { directiveFor, dropItem } from './palette.ts';

describe('dropping palette items', () => {
  const design = example('1f1b-p4-m8');
  const base = computed(design);

  test('split_backward on a B node of 1F1B adds BW ops and lowers the bubble', () => {
    const target = base.graph.nodes.find((n) => n.data.op === 'B' && n.data.tags.PP === 1)!;
    const r = dropItem(
      design,
      'split_backward',
      { id: target.data.firstId, tags: target.data.tags },
      base.program,
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.at(-1)).toEqual({ op: 'split_backward', filter: { PP: 1 } });
    expect(r.select).toBe(r.design.directives.length - 1);
    const after = computed(r.design);
    expect(after.simulation.timeline!.filter((e) => e.op === 'BW').length).toBe(8);
    expect(after.simulation.bubbleRatio).toBeLessThan(base.simulation.bubbleRatio);
  });

  test('split_backward on every region drops the 1F1B step below (m+p-1)(F+B)', () => {
    const r = dropItem(
      design,
      'split_backward',
      { id: 'B.b0.mb0', tags: { MB: 0, PASS: 'B' } },
      base.program,
    );
    if (!r.ok) throw new Error(r.error);
    const after = computed(r.design);
    expect(base.simulation.makespanMs).toBe(33);
    expect(after.simulation.makespanMs).toBeLessThan(33);
  });

  test('place on a node targets its device group', () => {
    expect(
      directiveFor('place', { id: 'F.b2.mb0', tags: { PP: 2, MB: 0, PASS: 'F' }, devices: [2] }),
    ).toEqual({
      op: 'place',
      filter: { PP: 2 },
      devices: [2],
    });
  });

  test('an overlap slot pairs a forward with the backward after it on the same device', () => {
    // Rank 3 of 1F1B alternates F and B from its first microbatch.
    const r = dropItem(
      design,
      'overlap',
      { id: 'F.b3.mb1', tags: { PP: 3, MB: 1, PASS: 'F' } },
      base.program,
    );
    if (!r.ok) throw new Error(r.error);
    const order = r.design.directives.find((d) => d.op === 'order' && d.filters.some((s) => s.length === 2));
    expect(order).toBeDefined();
    expect(computed(r.design).simulation.makespanMs).toBeGreaterThan(0);
  });

  test('an overlap slot on two forwards is refused with the reason', () => {
    const r = dropItem(
      design,
      'overlap',
      { id: 'F.b0.mb0', tags: { PP: 0, MB: 0, PASS: 'F' } },
      base.program,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/only an F&B pair overlaps/);
  });
});
