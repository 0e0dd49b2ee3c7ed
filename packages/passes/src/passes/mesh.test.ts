import { type Directive, parseDesign } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { nodeFs, repositoryRoot } from '../../../../test/repoFiles.ts';
import { compiled, errorsOf, moeDesign } from '../../test/parallelDesigns.ts';
import { compileIncremental } from '../compile/incremental.ts';

const mesh = (start = 0) => ({ axes: ['dp', 'tp'], shape: [2, 2], start });
const onMeshes = (...directives: Directive[]) =>
  moeDesign(
    [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      { op: 'place', filter: { PP: 0 }, mesh: mesh() },
      { op: 'place', filter: { PP: 1 }, mesh: mesh(4) },
      ...directives,
    ],
    { cluster: { kind: 'ideal', devices: 8 } },
  );

describe('device meshes', () => {
  it('a mesh group lists its members row-major over the mesh, strides included', () => {
    const r = compiled(
      moeDesign(
        [{ op: 'place', filter: {}, mesh: { axes: ['dp', 'tp'], shape: [2, 2], start: 1, strides: [4, 1] } }],
        { cluster: { kind: 'ideal', devices: 8 } },
      ),
    );
    expect(r.plan.groups).toEqual([[1, 2, 5, 6]]);
    expect(r.plan.meshes).toEqual([{ axes: ['dp', 'tp'], shape: [2, 2] }]);
  });

  it('a design without meshes still compiles to a stagecraft/plan@2 without meshes', () => {
    const r = compiled(moeDesign([{ op: 'place', filter: {}, devices: [0, 1] }]));
    expect(r.plan.format).toBe('stagecraft/plan@2');
    expect('meshes' in r.plan).toBe(false);
  });

  it('ZeRO shards over the data-parallel sub-group, not the whole mesh', () => {
    const r = compiled(onMeshes({ op: 'replicate', filter: {}, axis: 'dp', shard_optimizer: true }));
    const dp = r.plan.devices[0]!.memory!.optimizer;
    const whole = compiled(
      onMeshes({ op: 'replicate', filter: {}, axis: ['dp', 'tp'], shard_optimizer: true }),
    ).plan.devices[0]!.memory!.optimizer;
    expect(dp).toBe(2 * whole);
    expect(r.plan.batch?.replicas).toBe(2);
  });

  it('a directive that names a mesh group’s devices runs over the whole group, as over a flat one', () => {
    const r = compiled(onMeshes({ op: 'replicate', filter: { PP: 0 }, devices: [3, 2, 1, 0] }));
    const grads = r.plan.devices[1]!.streams.flatMap((s) => s.instructions).find(
      (i) => i.op === 'ALL_REDUCE',
    );
    expect(grads).toMatchObject({ devices: [0, 1, 2, 3], collective: grads?.id });
  });

  it('refuses an axis over ops that are not on a mesh, naming the ops and the fix', () => {
    expect(
      errorsOf(
        moeDesign([
          { op: 'place', filter: {}, devices: [0, 1] },
          { op: 'replicate', filter: {}, axis: 'dp' },
        ]),
      ),
    ).toEqual([
      'directives[1].axis: the filter matches F.b0 on devices [0, 1], which are not a mesh; place them with "mesh" and axes "dp", or give "devices"',
    ]);
  });

  it('refuses a collective over part of a flat group, pointing to meshes', () => {
    expect(
      errorsOf(
        moeDesign([
          { op: 'place', filter: {}, devices: [0, 1, 2, 3] },
          { op: 'replicate', filter: {}, devices: [0, 2] },
        ]),
      ),
    ).toEqual([
      'directives[1].devices: devices [0, 2] are part of the group [0, 1, 2, 3]; replicate runs over a whole group, or over the sub-groups of a mesh: place the group with "mesh" and name its axes ("axis"), or give one replicate per sub-group',
    ]);
  });

  it('refuses an axis the mesh does not have, naming the mesh', () => {
    expect(errorsOf(onMeshes({ op: 'shard_tensor', filter: { TP: '*' }, axis: 'ep' }))).toEqual([
      'directives[3].axis: the filter matches F.b0.mb0 on devices [0, 1, 2, 3], mesh dp2×tp2, which has no axis "ep"',
    ]);
  });

  it('refuses tensor and data parallelism of one block over the same axis', () => {
    expect(
      errorsOf(
        onMeshes(
          { op: 'replicate', filter: {}, axis: ['dp', 'tp'] },
          { op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp' },
        ),
      )[0],
    ).toMatch(
      /^directives\[4\]\.filter: block 0 \(attn 0\) .* cannot cover the same region of one group over the same mesh axis$/,
    );
  });

  it('refuses activations moving between groups on different meshes', () => {
    const d = moeDesign(
      [
        { op: 'place', filter: { PP: 0 }, mesh: { axes: ['dp', 'tp'], shape: [2, 2] } },
        { op: 'place', filter: { PP: 1 }, mesh: { axes: ['dp', 'tp'], shape: [1, 4], start: 4 } },
      ],
      { cluster: { kind: 'ideal', devices: 8 } },
    );
    expect(errorsOf(d)).toEqual([
      'directives: F.b1 on mesh dp2×tp2 feeds F.b2 on mesh dp1×tp4: data moves between groups member by member, so both need the same mesh (axes and sizes)',
    ]);
  });

  it('refuses the same devices placed once as a mesh and once without', () => {
    const d = moeDesign(
      [
        { op: 'place', filter: { PP: 0 }, mesh: { axes: ['dp'], shape: [2] } },
        { op: 'place', filter: { PP: 1 }, devices: [0, 1] },
      ],
      { cluster: { kind: 'ideal', devices: 4 } },
    );
    expect(errorsOf(d)).toEqual([
      'directives[1].devices: devices [0, 1] are the group of directives[0].mesh laid out as mesh dp2; place on the same devices every time',
    ]);
  });
});

describe('designs written before meshes', () => {
  it('an @1 or @2 design compiles, through the migration, to the plan@2 it compiled to before', async () => {
    const fs = await nodeFs();
    const root = await repositoryRoot();
    // A plan committed before design format @3 existed (runtime/tests/make_plans.sh), and its design.
    const before = JSON.parse(fs.readFileSync(`${root}/runtime/tests/plans/1f1b-p4-m8.json`, 'utf8'));
    const doc = JSON.parse(fs.readFileSync(`${root}/runtime/tests/designs/1f1b-p4-m8.json`, 'utf8'));
    for (const format of ['stagecraft/design@1', 'stagecraft/design@2', 'stagecraft/design@3']) {
      const parsed = parseDesign({ ...doc, format });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      expect(JSON.parse(JSON.stringify(compiled(parsed.design).plan))).toEqual(before);
    }
  });
});

describe('meshes in an incremental compile', () => {
  it('changing the axis of a replicate recompiles to the plan a fresh compile makes', () => {
    const design = onMeshes(
      { op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp' },
      { op: 'replicate', filter: {}, axis: 'dp' },
    );
    const first = compileIncremental(design, undefined);
    if (!first.result.ok) throw new Error(JSON.stringify(first.result.errors));
    const edited = onMeshes({ op: 'replicate', filter: {}, axis: ['dp', 'tp'] });
    const again = compileIncremental(edited, first.state);
    if (!again.result.ok) throw new Error(JSON.stringify(again.result.errors));
    expect(JSON.stringify(again.result.plan)).toBe(JSON.stringify(compiled(edited).plan));
  });
});
