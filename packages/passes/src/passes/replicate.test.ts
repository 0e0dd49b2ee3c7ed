import type { CollectiveNode, ComputeNode } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import {
  after,
  byId,
  compiled,
  errorsOf,
  moeDesign,
  ofKind,
  onTwoStages,
  preds,
  succs,
} from '../../test/parallelDesigns.ts';

const dp = (extra: Record<string, unknown> = {}) =>
  onTwoStages(
    { op: 'replicate', filter: { PP: 0 }, devices: [0, 1], reduce_stream: 'dp', ...extra },
    { op: 'replicate', filter: { PP: 1 }, devices: [2, 3], reduce_stream: 'dp', ...extra },
  );

describe('replicate', () => {
  it('all-reduces each block’s gradients once, after every microbatch’s backward, before the optimizer step', () => {
    const dag = after(dp(), 'replicate');
    const ar = ofKind(dag, 'ALL_REDUCE') as CollectiveNode[];
    expect(ar.map((n) => n.id).sort()).toEqual([
      'ALL_REDUCE.grads.d0.k0',
      'ALL_REDUCE.grads.d0.k1',
      'ALL_REDUCE.grads.d2.k0',
      'ALL_REDUCE.grads.d2.k1',
    ]);
    // Backward order: bucket 0 is the stage's last block.
    const first = byId(dag, 'ALL_REDUCE.grads.d0.k0') as CollectiveNode;
    expect(first).toMatchObject({ stream: 'dp', devices: [0, 1], bytes: 1600, group: 0 });
    expect(first.provenance).toEqual({ pass: 'replicate', directive: 3 });
    expect(preds(dag, first.id)).toEqual(['B.b1.mb0', 'B.b1.mb1']);
    expect(succs(dag, first.id)).toEqual(['UPD.d0']);
  });

  it('bucket_size puts consecutive blocks into one collective up to that many gradient bytes', () => {
    const dag = after(dp({ bucket_size: 2400 }), 'replicate');
    const ar = byId(dag, 'ALL_REDUCE.grads.d0.k0') as CollectiveNode;
    expect(ar.bytes).toBe(2400);
    expect(preds(dag, ar.id)).toEqual(['B.b0.mb0', 'B.b0.mb1', 'B.b1.mb0', 'B.b1.mb1']);
    expect(ofKind(dag, 'ALL_REDUCE')).toHaveLength(2);
  });

  it('ZeRO-3 keeps one block per bucket despite bucket_size, so gradients come back in the layout its gathers use', () => {
    const dag = after(dp({ shard_params: true, bucket_size: 2400 }), 'replicate');
    expect(preds(dag, 'REDUCE_SCATTER.grads.d0.k0.mb0')).toEqual(['B.b1.mb0']);
    expect(preds(dag, 'REDUCE_SCATTER.grads.d0.k1.mb0')).toEqual(['B.b0.mb0']);
    expect((byId(dag, 'REDUCE_SCATTER.grads.d0.k1.mb0') as CollectiveNode).bytes).toBe(
      (byId(dag, 'ALL_GATHER.F.b0.mb0') as CollectiveNode).bytes,
    );
  });

  it('ZeRO-1 reduce-scatters after the last microbatch and all-gathers the updated parameters after UPD', () => {
    const dag = after(dp({ shard_optimizer: true, gather_stream: 'gather' }), 'replicate');
    expect(ofKind(dag, 'ALL_REDUCE')).toHaveLength(0);
    expect(preds(dag, 'REDUCE_SCATTER.grads.d0.k0')).toEqual(['B.b1.mb0', 'B.b1.mb1']);
    const ag = byId(dag, 'ALL_GATHER.params.d0.k0');
    expect(ag.stream).toBe('gather');
    expect(preds(dag, ag.id)).toEqual(['UPD.d0']);
    expect(dag.dataParallel?.map((r) => r.zero)).toEqual([1, 1]);
  });

  it('ZeRO-2 reduce-scatters every microbatch so only a gradient shard is kept between them', () => {
    const dag = after(dp({ shard_grads: true }), 'replicate');
    expect(preds(dag, 'REDUCE_SCATTER.grads.d0.k0.mb0')).toEqual(['B.b1.mb0']);
    expect(preds(dag, 'REDUCE_SCATTER.grads.d0.k0.mb1')).toEqual(['B.b1.mb1']);
    expect(ofKind(dag, 'REDUCE_SCATTER')).toHaveLength(8);
  });

  it('ZeRO-3 gathers a block’s parameters before each F and each B, holding them only while the op runs', () => {
    const dag = after(dp({ shard_params: true, gather_stream: 'gather' }), 'replicate');
    const gathers = ofKind(dag, 'ALL_GATHER').map((n) => n.id);
    expect(gathers).toContain('ALL_GATHER.F.b1.mb0');
    expect(gathers).toContain('ALL_GATHER.B.b0.mb1');
    expect(gathers).toHaveLength(16); // 4 blocks × 2 microbatches × (F, B); no gather after UPD
    expect(succs(dag, 'ALL_GATHER.F.b1.mb0')).toEqual(['F.b1.mb0']);
    // Prefetch: issued when the previous op of the chain (F.b0) could start, i.e. with nothing to wait for here.
    expect(preds(dag, 'ALL_GATHER.F.b1.mb0')).toEqual([]);
    const f = byId(dag, 'F.b1.mb0') as ComputeNode;
    expect(f.allocBytes).toBe(200 + 1600 / 2);
    expect(f.freeBytes).toBe(1600 / 2);
  });

  it('leaves expert blocks a shard directive covers on the same group out of the gradient sync', () => {
    const dag = after(
      onTwoStages(
        { op: 'replicate', filter: { PP: 0 }, devices: [0, 1] },
        { op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1] },
      ),
      'replicate',
    );
    expect(ofKind(dag, 'ALL_REDUCE').map((n) => n.id)).toEqual(['ALL_REDUCE.grads.d0.k0']);
    expect(preds(dag, 'ALL_REDUCE.grads.d0.k0')).toEqual(['B.b0.mb0', 'B.b0.mb1']);
    expect(dag.dataParallel).toEqual([{ group: 0, blocks: [0], zero: 0, directive: 3 }]);
  });

  it('defaults to the compute stream, as Piper does', () => {
    const dag = after(onTwoStages({ op: 'replicate', filter: { PP: 0 }, devices: [0, 1] }), 'replicate');
    expect(ofKind(dag, 'ALL_REDUCE').every((n) => n.stream === 'compute')).toBe(true);
  });

  it('ZeRO-1/2/3 divide the right parts of the resident training state by the group size', () => {
    const state = (extra: Record<string, unknown>) => compiled(dp(extra)).plan.devices[0]!.memory;
    const W = 800 + 1600;
    expect(state({})).toEqual({ params: W, grads: W, optimizer: 6 * W });
    expect(state({ shard_optimizer: true })).toEqual({ params: W, grads: W, optimizer: 3 * W });
    expect(state({ shard_grads: true })).toEqual({ params: W, grads: W / 2, optimizer: 3 * W });
    expect(state({ shard_params: true })).toEqual({ params: W / 2, grads: W / 2, optimizer: 3 * W });
  });
});

describe('device groups of replicate, shard and shard_tensor', () => {
  it('refuses devices that partly overlap a placed group', () => {
    expect(errorsOf(onTwoStages({ op: 'replicate', filter: { PP: 0 }, devices: [1, 2] }))).toEqual([
      'directives[3].devices: devices [1, 2] partly overlap the group [0, 1]; each device belongs to one group, and replicate runs over the group its ops are placed on',
    ]);
  });

  it('refuses devices beyond the cluster', () => {
    expect(errorsOf(onTwoStages({ op: 'shard', filter: { EP: '*' }, devices: [2, 9] }))).toEqual([
      'directives[3].devices[1]: device 9 is outside the cluster (devices 0..3)',
    ]);
  });

  it('refuses a group none of the matched ops runs on', () => {
    expect(errorsOf(onTwoStages({ op: 'replicate', filter: { PP: 0 }, devices: [2, 3] }))).toEqual([
      'directives[3].filter: matches F.b0.mb0 on devices [0, 1] but no op on [2, 3], where this replicate runs; place the region there first',
    ]);
  });

  it('refuses shard_tensor and replicate on the same region of one group', () => {
    expect(
      errorsOf(
        onTwoStages(
          { op: 'replicate', filter: { PP: 0 }, devices: [0, 1] },
          { op: 'shard_tensor', filter: { PP: 0, TP: '*' }, devices: [0, 1] },
        ),
      ),
    ).toEqual([
      'directives[4].filter: block 0 (attn 0) on devices [0, 1] is data parallel by directives[3]; shard_tensor and replicate cannot cover the same region of one group',
    ]);
  });

  it('refuses an expert-parallel degree that does not divide the experts', () => {
    const design = moeDesign([
      { op: 'place', filter: { PP: 0 }, devices: [0, 1, 2] },
      { op: 'place', filter: { PP: 1 }, devices: [3, 4, 5] },
      { op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1, 2] },
    ]);
    design.cluster = { kind: 'ideal', devices: 6 };
    expect(errorsOf(design)).toEqual([
      'directives[2].devices: expert parallelism over 3 devices does not divide the 4 experts of block 1 (experts 0)',
    ]);
  });
});
