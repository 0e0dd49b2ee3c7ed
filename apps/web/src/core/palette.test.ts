import { DESIGN_FORMAT } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { expandedDesign } from '../../../../test/splitBackwardDesigns.ts';
import { computed, example } from '../../test/testDesigns.ts';
import { directiveFor, dropItem } from './palette.ts';
import { expandSchedule } from './schedule.ts';

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
    // The schedule stays one directive: the drop adds the split_backward right after it, no more.
    expect(r.design.directives).toEqual([design.directives[0], { op: 'split_backward', filter: { PP: 1 } }]);
    expect(r.select).toBe(1);
    const after = computed(r.design);
    expect(after.simulation.timeline!.filter((e) => e.op === 'BW').length).toBe(8);
    expect(after.simulation.bubbleRatio).toBeLessThan(base.simulation.bubbleRatio);
  });

  test.each([
    ['1f1b-p4-m8', 'B.b1.mb0'],
    ['dualpipev-p4-m10', 'B.b1.mb0'],
  ])('%s: the compact drop on %s runs exactly as the expanded program the drop used to write', (name, id) => {
    const start = example(name);
    const first = computed(start);
    const node = first.graph.nodes.find((n) => n.data.firstId === id)!;
    const r = dropItem(start, 'split_backward', { id, tags: node.data.tags }, first.program);
    if (!r.ok) throw new Error(r.error);
    const compact = computed(r.design);
    const expanded = computed(expandedDesign(r.design, compact.program));
    expect(expanded.program.some((e) => e.path.length > 2)).toBe(false);
    expect(JSON.stringify(compact.plan)).toBe(JSON.stringify(expanded.plan));
    expect(compact.simulation.makespanMs).toBe(expanded.simulation.makespanMs);
    expect(compact.simulation.bubbleRatio).toBe(expanded.simulation.bubbleRatio);
  });

  test('a second split_backward goes after the first, both folded under the schedule', () => {
    const withRecompute = {
      ...design,
      directives: [...design.directives, { op: 'recompute' as const, filter: { PP: 0 } }],
    };
    const one = dropItem(
      withRecompute,
      'split_backward',
      { id: 'B.b1.mb0', tags: { PP: 1, MB: 0, PASS: 'B' } },
      [],
    );
    if (!one.ok) throw new Error(one.error);
    const two = dropItem(
      one.design,
      'split_backward',
      { id: 'B.b2.mb0', tags: { PP: 2, MB: 0, PASS: 'B' } },
      [],
    );
    if (!two.ok) throw new Error(two.error);
    expect(two.design.directives.map((d) => ('filter' in d ? `${d.op} ${d.filter.PP}` : d.op))).toEqual([
      'schedule',
      'split_backward 1',
      'split_backward 2',
      'recompute 0',
    ]);
    expect(two.select).toBe(2);
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

  test('an overlap slot on a schedule’s op is an edit of the schedule: the B and the next F run overlapped', () => {
    // Rank 3 of 1F1B alternates F and B from its first microbatch: B0 is followed by F1.
    const r = dropItem(
      design,
      'overlap',
      { id: 'B.b3.mb0', tags: { PP: 3, MB: 0, PASS: 'B' } },
      base.program,
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives).toEqual([
      { ...design.directives[0], edits: [{ kind: 'overlap', op: { PP: 3, MB: 0, PASS: 'B' } }] },
    ]);
    expect(r.design.format).toBe(DESIGN_FORMAT);
    const after = computed(r.design);
    const device3 = after.plan.devices[3]!.streams.find((st) => st.stream === 'compute')!.instructions;
    expect(device3.filter((i) => i.op === 'OVERLAP').map((i) => i.id)).toHaveLength(1);
    // The same slots merged by hand on the expanded program run the same.
    const byHand = expandSchedule(design, 0, base.program);
    if (!byHand.ok) throw new Error(byHand.error);
    const handDrop = dropItem(
      byHand.design,
      'overlap',
      { id: 'B.b3.mb0', tags: { PP: 3, MB: 0, PASS: 'B' } },
      computed(byHand.design).program,
    );
    if (!handDrop.ok) throw new Error(handDrop.error);
    expect(computed(handDrop.design).simulation.makespanMs).toBe(after.simulation.makespanMs);
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
