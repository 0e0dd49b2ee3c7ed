import type { CollectiveNode, ComputeNode } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import {
  after,
  byId,
  compiled,
  moeDesign,
  ofKind,
  PLACE_2x2,
  preds,
  succs,
} from '../../test/parallelDesigns.ts';

const tp = moeDesign([
  ...PLACE_2x2,
  { op: 'shard_tensor', filter: { PP: 0, TP: '*' }, devices: [0, 1], stream: 'tp' },
]);

describe('shard_tensor (tensor parallelism)', () => {
  it('all-reduces the block’s forward output and its input gradient', () => {
    const dag = after(tp, 'shard-tensor');
    const fwd = byId(dag, 'ALL_REDUCE.tp.F.b0.mb0') as CollectiveNode;
    expect(fwd).toMatchObject({ stream: 'tp', devices: [0, 1], bytes: 10 });
    expect(preds(dag, fwd.id)).toEqual(['F.b0.mb0']);
    expect(succs(dag, fwd.id)).toEqual(['F.b1.mb0']);
    // B.b0 is the first block's backward: its input gradient has no consumer, so no all-reduce.
    expect(
      ofKind(dag, 'ALL_REDUCE')
        .map((n) => n.id)
        .sort(),
    ).toEqual(['ALL_REDUCE.tp.F.b0.mb0', 'ALL_REDUCE.tp.F.b0.mb1']);
  });

  it('all-reduces an inner block’s input gradient on its way to the block before it', () => {
    const dag = after(
      moeDesign([...PLACE_2x2, { op: 'shard_tensor', filter: { PP: 1, TP: '*' }, devices: [2, 3] }]),
      'shard-tensor',
    );
    expect(preds(dag, 'ALL_REDUCE.tp.B.b2.mb0')).toEqual(['B.b2.mb0']);
    expect(succs(dag, 'ALL_REDUCE.tp.B.b2.mb0')).toEqual(['SEND.B.b2.mb0.d0']);
    expect(succs(dag, 'ALL_REDUCE.tp.F.b2.mb0')).toEqual(['F.b3.mb0']);
  });

  it('gives each member 1/n of the block’s time, parameters and stash', () => {
    const r = compiled(tp);
    const f = byId(r.dag, 'F.b0.mb0') as ComputeNode;
    expect(f.allocBytes).toBe(50);
    expect(r.dag.blocks[0]).toMatchObject({ paramBytes: 400, activationBytes: 50 });
    expect(r.dag.blocks[0]!.ms).toMatchObject({ F: 0.5, BI: 0.5, BW: 0.5 });
    const ins = r.plan.devices[0]!.streams[0]!.instructions.find((i) => i.id === 'F.b0.mb0');
    expect(ins).toMatchObject({ ms: 0.5 });
  });
});
