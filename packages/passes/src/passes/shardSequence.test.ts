import type { CollectiveNode, ComputeNode, Design, Directive } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import {
  after,
  byId,
  compiled,
  errorsOf,
  moeDesign,
  onTwoStages,
  preds,
  succs,
} from '../../test/parallelDesigns.ts';
import { exchangeBuffers } from './shardSequence.ts';

const ring = onTwoStages({ op: 'shard_sequence', filter: { PP: 1 }, devices: [2, 3] });
const gather = onTwoStages({ op: 'shard_sequence', filter: { PP: 1 }, devices: [2, 3], form: 'all_gather' });

/** Stage 0 on [0, 1] and stage 1 on [2, 3], each a dp × cp mesh, with `directives` after. */
function onMeshes(...directives: Directive[]): Design {
  return moeDesign(
    [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      { op: 'place', filter: { PP: 0 }, mesh: { axes: ['dp', 'cp'], shape: [2, 2], start: 0 } },
      { op: 'place', filter: { PP: 1 }, mesh: { axes: ['dp', 'cp'], shape: [2, 2], start: 4 } },
      ...directives,
    ],
    { cluster: { kind: 'ideal', devices: 8 } },
  );
}

describe('shard_sequence (context parallelism)', () => {
  it('ring: exchanges K/V on its own stream alongside the forward, finished before the output is used', () => {
    const dag = after(ring, 'shard-sequence');
    const x = byId(dag, 'ALL_GATHER.cp.F.b2.mb0') as CollectiveNode;
    // A synthetic block stands for a layer: it exchanges its whole input, 10 bytes.
    expect(x).toMatchObject({ stream: 'cp', devices: [2, 3], bytes: 10 });
    expect(preds(dag, x.id)).toEqual(['RECV.F.b1.mb0.d2']);
    // Its consumers, and the next block's ring, which passes the output this one completes.
    expect(succs(dag, x.id)).toEqual(['ALL_GATHER.cp.F.b3.mb0', 'B.b2.mb0', 'F.b3.mb0']);
    // The forward does not wait for it: the two overlap.
    expect(preds(dag, 'F.b2.mb0')).not.toContain(x.id);
    // The backward passes K/V again and their gradients back, both before the input gradient leaves.
    const sendB = succs(dag, 'B.b2.mb0').find((v) => v.startsWith('SEND'))!;
    expect(preds(dag, sendB)).toEqual(
      expect.arrayContaining(['B.b2.mb0', 'ALL_GATHER.cp.B.b2.mb0', 'REDUCE_SCATTER.cp.B.b2.mb0']),
    );
  });

  it('ring: the plan says the steps, cp − 1 around the members; the next block’s ring waits for this one', () => {
    const r = compiled(
      onMeshes({ op: 'shard_sequence', filter: {}, axis: 'cp' }, { op: 'replicate', filter: {}, axis: 'dp' }),
    );
    const ins = r.plan.devices.find((d) => d.device === 4)!.streams.flatMap((s) => s.instructions);
    const kv = ins.filter((i) => i.id.includes('.cp.'));
    expect(kv.length).toBeGreaterThan(0);
    for (const i of kv) expect(i.op !== 'F' && 'ringSteps' in i && i.ringSteps).toBe(1);
    // Block 3 reads block 2's output, whole only once block 2's ring has merged every chunk in.
    expect(preds(r.dag, 'ALL_GATHER.cp.F.b3.mb0')).toContain('ALL_GATHER.cp.F.b2.mb0');
    const gathered = compiled(gather).plan.devices.flatMap((d) => d.streams.flatMap((s) => s.instructions));
    expect(gathered.some((i) => 'ringSteps' in i)).toBe(false);
  });

  it('all_gather: the forward waits for the gathered K/V, the input gradient for their reduce-scatter', () => {
    const dag = after(gather, 'shard-sequence');
    expect(succs(dag, 'ALL_GATHER.cp.F.b2.mb0')).toEqual(['F.b2.mb0']);
    expect(preds(dag, 'B.b2.mb0')).toContain('ALL_GATHER.cp.B.b2.mb0');
    expect(preds(dag, 'REDUCE_SCATTER.cp.B.b2.mb0')).toContain('B.b2.mb0');
    expect(succs(dag, 'REDUCE_SCATTER.cp.B.b2.mb0')).toEqual(['SEND.B.b2.mb0.d0']);
    expect(succs(dag, 'B.b2.mb0')).not.toContain('SEND.B.b2.mb0.d0');
  });

  it('holds the exchanged K/V while the attention runs: gathered (cp−1)/cp, the ring’s chunks in flight', () => {
    // 10 bytes of K/V over 2 members: the other member's half in either form at cp = 2.
    const f = byId(after(gather, 'shard-sequence'), 'F.b2.mb0') as ComputeNode;
    expect(f.freeBytes).toBe(5);
    expect(exchangeBuffers('all_gather', 8, 80, true)).toBe(70);
    expect(exchangeBuffers('all_gather', 8, 80, false)).toBe(140);
    // The ring holds two chunks of 1/cp (the one used and the one arriving), twice in the backward.
    expect(exchangeBuffers('ring', 8, 80, true)).toBe(20);
    expect(exchangeBuffers('ring', 8, 80, false)).toBe(40);
  });

  it('gives each member 1/cp of the sequence: time, stash and the hidden states it sends; parameters whole', () => {
    const r = compiled(ring);
    const f = byId(r.dag, 'F.b2.mb0') as ComputeNode;
    // Its 1/cp of the stash, 50, and the K/V chunk received from the other member while it runs, 5.
    expect(f.allocBytes).toBe(50 + 5);
    expect(f.freeBytes).toBe(5);
    expect(r.dag.blocks[2]).toMatchObject({ paramBytes: 800, activationBytes: 50, outputBytes: 5 });
    expect(r.dag.blocks[2]!.ms).toMatchObject({ F: 0.5, BI: 0.5, BW: 0.5 });
    expect(byId(r.dag, 'SEND.B.b2.mb0.d0')).toMatchObject({ bytes: 5 });
    // Stage 0 is not split.
    expect(r.dag.blocks[0]).toMatchObject({ activationBytes: 100 });
    expect(r.plan.contextParallel).toEqual([{ devices: [2, 3], blocks: [2, 3], form: 'ring' }]);
  });

  it('without data parallelism, still sums the members’ gradients: one all-reduce over the cp members', () => {
    const dag = after(ring, 'replicate');
    const reduces = dag.nodes.filter(
      (n) => n.kind === 'collective' && n.op === 'ALL_REDUCE',
    ) as CollectiveNode[];
    expect(reduces.length).toBeGreaterThan(0);
    for (const n of reduces) expect(n.devices).toEqual([2, 3]);
  });

  it('folds the gradient reduce over cp into data parallelism’s: one reduce over dp × cp', () => {
    const plan = compiled(
      onMeshes(
        { op: 'replicate', filter: {}, axis: 'dp' },
        { op: 'shard_sequence', filter: { PP: 1 }, axis: 'cp' },
      ),
    ).plan;
    const reduces = plan.devices
      .find((d) => d.device === 4)!
      .streams.flatMap((s) => s.instructions)
      .filter((i) => i.op === 'ALL_REDUCE');
    expect(reduces.length).toBeGreaterThan(0);
    for (const i of reduces) expect(i.op === 'ALL_REDUCE' && i.devices).toEqual([4, 5, 6, 7]);
    // Stage 0 has no context parallelism: its reduce stays over dp.
    const stage0 = plan.devices.find((d) => d.device === 0)!.streams.flatMap((s) => s.instructions);
    const first = stage0.find((i) => i.op === 'ALL_REDUCE');
    expect(first?.op === 'ALL_REDUCE' && first.devices).toEqual([0, 2]);
    // The K/V exchanges run among the cp members only.
    const kv = plan.devices
      .find((d) => d.device === 4)!
      .streams.flatMap((s) => s.instructions)
      .find((i) => i.id === 'ALL_GATHER.cp.F.b2.mb0');
    expect(kv?.op === 'ALL_GATHER' && kv.devices).toEqual([4, 5]);
  });

  it('refuses a block whose sequence is split twice, naming the directive', () => {
    const errors = errorsOf(
      onTwoStages(
        { op: 'shard_sequence', filter: { PP: 1 }, devices: [2, 3] },
        { op: 'shard_sequence', filter: { PP: 1, TP: 0 }, devices: [2, 3] },
      ),
    );
    expect(errors).toEqual([
      'directives[4].filter: block 2 (attn 1) on devices [2, 3] already has its sequence split',
    ]);
  });

  it('refuses an axis the group’s mesh does not have', () => {
    const errors = errorsOf(onMeshes({ op: 'shard_sequence', filter: {}, axis: 'sp' }));
    expect(errors[0]).toMatch(
      /^directives\[3\]\.axis: the filter matches .* mesh dp2×cp2, which has no axis "sp"/,
    );
  });
});
