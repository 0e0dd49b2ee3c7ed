import type { CollectiveNode } from '@stagecraft/ir';
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

const ep = moeDesign([
  ...PLACE_2x2,
  { op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1], stream: 'ep' },
]);

describe('shard (expert parallelism)', () => {
  it('dispatches with an all-to-all on the edge entering the experts and combines on the edge leaving them', () => {
    const dag = after(ep, 'shard');
    const dispatch = byId(dag, 'ALL_TO_ALL.dispatch.F.b0.mb0') as CollectiveNode;
    expect(dispatch).toMatchObject({ stream: 'ep', devices: [0, 1], group: 0, bytes: 10 * 2 });
    expect(preds(dag, dispatch.id)).toEqual(['F.b0.mb0']);
    expect(succs(dag, dispatch.id)).toEqual(['F.b1.mb0']);
    // The experts' output leaves the stage: the combine sits between them and the SEND.
    expect(preds(dag, 'ALL_TO_ALL.combine.F.b1.mb0')).toEqual(['F.b1.mb0']);
    expect(succs(dag, 'ALL_TO_ALL.combine.F.b1.mb0')).toEqual(['SEND.F.b1.mb0.d2']);
    expect(preds(dag, 'F.b1.mb0')).toEqual(['ALL_TO_ALL.dispatch.F.b0.mb0']);
  });

  it('mirrors them in the backward: the incoming gradient is combined back, the outgoing one dispatched', () => {
    const dag = after(ep, 'shard');
    expect(preds(dag, 'ALL_TO_ALL.combine-grad.RECV.B.b2.mb1.d0')).toEqual(['RECV.B.b2.mb1.d0']);
    expect(succs(dag, 'ALL_TO_ALL.combine-grad.RECV.B.b2.mb1.d0')).toEqual(['B.b1.mb1']);
    expect(preds(dag, 'ALL_TO_ALL.dispatch-grad.B.b1.mb1')).toEqual(['B.b1.mb1']);
    expect(succs(dag, 'ALL_TO_ALL.dispatch-grad.B.b1.mb1')).toEqual(['B.b0.mb1']);
    // 2 microbatches × (dispatch, combine, their gradients); the second stage is untouched.
    expect(ofKind(dag, 'ALL_TO_ALL')).toHaveLength(8);
    expect(ofKind(dag, 'ALL_TO_ALL').every((n) => n.group === 0)).toBe(true);
  });

  it('keeps weight gradients local when the backward is split', () => {
    const dag = after(
      moeDesign([
        ...PLACE_2x2,
        { op: 'split_backward', filter: {} },
        { op: 'shard', filter: { PP: 0, EP: '*' }, devices: [0, 1] },
      ]),
      'shard',
    );
    expect(preds(dag, 'BW.b1.mb0')).toEqual(['BI.b1.mb0']);
    expect(succs(dag, 'ALL_TO_ALL.dispatch-grad.BI.b1.mb0')).toEqual(['BI.b0.mb0']);
  });

  it('holds experts/n of the experts’ parameters on each member', () => {
    const plan = compiled(ep).plan;
    expect(plan.devices[0]!.paramBytes).toBe(800 + 1600 / 2);
    expect(plan.devices[2]!.paramBytes).toBe(800 + 1600);
  });
});
