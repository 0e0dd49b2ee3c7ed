import { DESIGN_FORMAT } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { expandedDesign } from '../../../../test/splitBackwardDesigns.ts';
import { computed, example } from '../../test/testDesigns.ts';
import { regionFilter } from './dropTarget.ts';
import { directiveFor, dropItem, WHOLE_GROUP } from './palette.ts';
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

describe('dropping a directive on a mesh group', () => {
  // Llama-3-70B TP8 × PP4 × DP2 without its tensor- and data-parallel directives: each stage is a
  // dp2 × tp8 mesh the user has yet to say how to use.
  const llama = example('llama3-70b-tp8-pp4-dp2');
  const bare = { ...llama, directives: llama.directives.slice(0, 1) };
  const base = computed(bare);
  const node = base.graph.nodes.find((n) => n.data.op === 'F' && n.data.tags.PP === 2)!;
  const target = {
    id: node.data.firstId,
    tags: node.data.tags,
    devices: node.data.devices,
    mesh: node.data.mesh!,
  };
  const filter = regionFilter(node.data.tags);

  test("a DAG node carries its group's mesh and members", () => {
    expect(node.data.mesh).toEqual({ axes: ['dp', 'tp'], shape: [2, 8] });
    expect(node.data.devices).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 48, 49, 50, 51, 52, 53, 54, 55]);
  });

  test.each(['shard_tensor', 'shard_sequence', 'shard', 'replicate'] as const)(
    '%s on a group with two axes asks which one, listing each axis and the whole group',
    (item) => {
      const r = dropItem(bare, item, target, base.program);
      if (r.ok) throw new Error('expected a question');
      expect(r.confirm?.choices?.map((c) => c.value)).toEqual(['dp', 'tp', WHOLE_GROUP]);
      expect(r.confirm?.choices?.map((c) => c.label)).toEqual([
        'dp (2 devices each, 8 sub-groups)',
        'tp (8 devices each, 2 sub-groups)',
        'whole group (16 devices)',
      ]);
    },
  );

  test('shard_tensor over the chosen tp axis adds the directive on that group and axis, and it compiles', () => {
    const r = dropItem(bare, 'shard_tensor', target, base.program, 'tp');
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.at(-1)).toEqual({
      op: 'shard_tensor',
      filter,
      devices: target.devices,
      axis: 'tp',
    });
    const after = computed(r.design);
    // Tensor parallelism over tp: each all-reduce runs among the 8 GPUs of one node (a tp
    // sub-group), never across the two data-parallel replicas.
    const groups = new Set(
      after.plan.devices
        .flatMap((d) => d.streams.flatMap((s) => s.instructions))
        .filter((i) => i.op === 'ALL_REDUCE')
        .map((i) => ('devices' in i ? JSON.stringify(i.devices) : '')),
    );
    expect(groups.size).toBeGreaterThan(0);
    for (const g of groups)
      expect([
        JSON.stringify([16, 17, 18, 19, 20, 21, 22, 23]),
        JSON.stringify([48, 49, 50, 51, 52, 53, 54, 55]),
      ]).toContain(g);
  });

  test('shard_sequence over the chosen axis adds the directive on that group and axis', () => {
    const r = dropItem(bare, 'shard_sequence', target, base.program, 'dp');
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.at(-1)).toEqual({
      op: 'shard_sequence',
      filter,
      devices: target.devices,
      axis: 'dp',
    });
  });

  test('a design built as @1 says @3 once a directive runs over a mesh axis, so it saves and loads', () => {
    const r = dropItem(
      { ...bare, format: 'stagecraft/design@1' },
      'shard_tensor',
      target,
      base.program,
      'tp',
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.design.format).toBe(DESIGN_FORMAT);
  });

  test('the whole group as the answer adds the directive over every member, as without a mesh', () => {
    const r = dropItem(bare, 'replicate', target, base.program, WHOLE_GROUP);
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.at(-1)).toEqual({ op: 'replicate', filter, devices: target.devices });
  });

  test('an answer that is not an axis of the mesh is refused naming the axes', () => {
    const r = dropItem(bare, 'shard', target, base.program, 'ep');
    expect(r).toEqual({ ok: false, error: '"ep" is not an axis of the group\'s mesh (dp, tp)' });
  });

  test('a mesh with one axis takes that axis without asking', () => {
    const r = dropItem(bare, 'replicate', { ...target, mesh: { axes: ['dp'], shape: [16] } }, base.program);
    if (!r.ok) throw new Error(r.error);
    expect(r.design.directives.at(-1)).toMatchObject({ op: 'replicate', axis: 'dp' });
  });

  test('a group without a mesh, and items that run over no axis, drop as they always have', () => {
    const flat = dropItem(bare, 'shard_tensor', { ...target, mesh: undefined }, base.program);
    if (!flat.ok) throw new Error(flat.error);
    expect(flat.design.directives.at(-1)).not.toHaveProperty('axis');
    const placed = dropItem(bare, 'recompute', target, base.program);
    if (!placed.ok) throw new Error(placed.error);
    expect(placed.design.directives.at(-1)).toEqual({ op: 'recompute', filter });
  });
});
