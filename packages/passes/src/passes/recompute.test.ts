import type { ComputeNode, MemoryNode } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { after, byId, errorsOf, moeDesign, PLACE_2x2, preds, succs } from '../../test/parallelDesigns.ts';

describe('recompute', () => {
  const dag = after(moeDesign([...PLACE_2x2, { op: 'recompute', filter: { PP: 1 } }]), 'recompute');

  it('keeps only the block input from F and re-runs the forward before the backward', () => {
    const f = byId(dag, 'F.b3.mb0') as ComputeNode;
    const r = byId(dag, 'RECOMPUTE.b3.mb0') as ComputeNode;
    const b = byId(dag, 'B.b3.mb0') as ComputeNode;
    expect(f.allocBytes).toBe(10); // the previous block's output
    expect(r).toMatchObject({ op: 'RECOMPUTE', group: 1, stream: 'compute', allocBytes: 200 });
    expect(r.provenance).toEqual({ pass: 'recompute', directive: 3 });
    expect(b.freeBytes).toBe(210);
    expect(preds(dag, 'B.b3.mb0')).toEqual(['RECOMPUTE.b3.mb0']);
    expect(preds(dag, 'RECOMPUTE.b3.mb0')).toEqual(['F.b3.mb0']);
  });

  it('waits for what the backward waits for, so it runs when the gradient arrives', () => {
    expect(preds(dag, 'RECOMPUTE.b2.mb1')).toEqual(['B.b3.mb1', 'F.b2.mb1']);
    expect(succs(dag, 'RECOMPUTE.b2.mb1')).toEqual(['B.b2.mb1']);
  });

  it('refuses a filter on a backward pass', () => {
    expect(errorsOf(moeDesign([...PLACE_2x2, { op: 'recompute', filter: { PP: 1, PASS: 'B' } }]))).toEqual([
      'directives[3].filter.PASS: recompute re-runs forwards; PASS must be F, not B',
    ]);
  });
});

describe('offload', () => {
  const dag = after(
    moeDesign([...PLACE_2x2, { op: 'offload', filter: { PP: 0 }, stream: 'host' }]),
    'offload',
  );

  it('moves the stash to the host after F and back before B, on its stream', () => {
    const o = byId(dag, 'OFFLOAD.b1.mb0') as MemoryNode;
    const r = byId(dag, 'RELOAD.b1.mb0') as MemoryNode;
    expect(o).toMatchObject({ kind: 'memory', stream: 'host', bytes: 200, group: 0 });
    expect(r).toMatchObject({ kind: 'memory', stream: 'host', bytes: 200, group: 0 });
    expect(preds(dag, 'OFFLOAD.b1.mb0')).toEqual(['F.b1.mb0']);
    expect(preds(dag, 'RELOAD.b1.mb0')).toEqual(['OFFLOAD.b1.mb0', 'RECV.B.b2.mb0.d0']);
    expect(preds(dag, 'B.b1.mb0')).toEqual(['F.b1.mb0', 'RECV.B.b2.mb0.d0', 'RELOAD.b1.mb0']);
  });

  it('reloads one op ahead: the stash of B.b0 comes back when B.b1 could start', () => {
    expect(preds(dag, 'RELOAD.b0.mb0')).toEqual(['OFFLOAD.b0.mb0', 'RECV.B.b2.mb0.d0']);
    expect(succs(dag, 'RELOAD.b0.mb0')).toEqual(['B.b0.mb0']);
  });
});
