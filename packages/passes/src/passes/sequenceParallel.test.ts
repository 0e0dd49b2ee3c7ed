import { type CollectiveNode, type Design, parseDesign } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { tp8Layer as llamaLayer } from '../../../../test/tensorParallelDesigns.ts';
import {
  after,
  byId,
  compiled,
  ofKind,
  onTwoStages,
  PLACE_2x2,
  preds,
  succs,
} from '../../test/parallelDesigns.ts';
import { exportPiperProgram } from '../formats/piperProgram.ts';

const sp = onTwoStages({
  op: 'shard_tensor',
  filter: { PP: 0, TP: '*' },
  devices: [0, 1],
  stream: 'tp',
  sequence_parallel: true,
});

/** The attention block of the layer (block 1: after the embedding). */
const attention = (d: Design) => compiled(d).dag.blocks.find((b) => b.name.includes('attention'))!;

describe('shard_tensor sequence_parallel', () => {
  it('reduce-scatters a block’s output and all-gathers it into the next, in place of the all-reduce', () => {
    const dag = after(sp, 'shard-tensor');
    const scatter = byId(dag, 'REDUCE_SCATTER.tp.F.b0.mb0') as CollectiveNode;
    const gather = byId(dag, 'ALL_GATHER.tp.F.b0.mb0') as CollectiveNode;
    expect(scatter).toMatchObject({ stream: 'tp', devices: [0, 1], bytes: 10 });
    expect(gather).toMatchObject({ stream: 'tp', devices: [0, 1], bytes: 10 });
    expect(preds(dag, scatter.id)).toEqual(['F.b0.mb0']);
    expect(succs(dag, scatter.id)).toEqual([gather.id]);
    expect(succs(dag, gather.id)).toEqual(['F.b1.mb0']);
    expect(ofKind(dag, 'ALL_REDUCE')).toEqual([]);
  });

  it('holds the norm activations 1/n with it and whole without it; absent, as designs before the option', () => {
    const on = attention(llamaLayer(true));
    const off = attention(llamaLayer(false));
    const before = attention(llamaLayer(undefined));
    // Llama-3-8B attention at 4,096 tokens: the norm's input and output are 2 × 4096 × 4096 bf16.
    const norms = 2 * 4096 * 4096 * 2;
    expect(off.activationBytes - on.activationBytes).toBeCloseTo((norms * 7) / 8, 0);
    expect(before.activationBytes).toBe(on.activationBytes);
    // The checkpointed input (the norm's input) likewise.
    expect(off.recomputeActivationBytes).toBe(4096 * 4096 * 2);
    expect(on.recomputeActivationBytes).toBe((4096 * 4096 * 2) / 8);
  });

  it('repeats the reduce-scatter and the all-gather when a block is recomputed', () => {
    const plan = compiled(llamaLayer(true, true)).plan;
    const ids = plan.devices[0]!.streams.flatMap((s) => s.instructions.map((i) => i.id));
    const again = ids.filter((id) => id.includes('.RECOMPUTE.'));
    expect(again.filter((id) => id.startsWith('REDUCE_SCATTER.tp.')).length).toBeGreaterThan(0);
    expect(again.filter((id) => id.startsWith('ALL_GATHER.tp.')).length).toBe(
      again.filter((id) => id.startsWith('REDUCE_SCATTER.tp.')).length,
    );
  });

  it('is refused at its path when not a boolean', () => {
    const bad = JSON.parse(JSON.stringify(llamaLayer(true)));
    bad.directives[2].sequence_parallel = 'yes';
    const r = parseDesign(bad);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toContain('directives[2].sequence_parallel');
  });

  it('has no Piper form: the export refuses it with the reason', () => {
    const design = llamaLayer(true);
    const r = compiled(design);
    const piper = exportPiperProgram(design, r.program, r.plan, r.dag);
    expect(piper.ok).toBe(false);
    if (!piper.ok) expect(piper.errors[0]!.path).toBe('directives[2].sequence_parallel');
  });
});

/** Two dense stages of two blocks on [0, 1] and [2, 3], each stage tensor parallel unless `second` is false. */
function bothStages(
  options: { sequence_parallel?: boolean; scatter_gather_sends?: boolean },
  second = true,
): Design {
  const block = (s: number, k: number) => ({
    name: `layer ${2 * s + k}`,
    tags: { PP: s, TP: 0 },
    F: 1,
    BI: 1,
    BW: 1,
    activationBytes: 100,
    paramBytes: 800,
    outputBytes: 10,
  });
  return {
    format: 'stagecraft/design@1',
    name: 'test',
    model: {
      kind: 'synthetic',
      blocks: [block(0, 0), block(0, 1), block(1, 0), block(1, 1)],
      tokensPerMicrobatch: 1000,
    },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [
      ...PLACE_2x2,
      { op: 'shard_tensor', filter: { PP: 0, TP: '*' }, devices: [0, 1], stream: 'tp', ...options },
      ...(second
        ? [
            {
              op: 'shard_tensor' as const,
              filter: { PP: 1, TP: '*' as const },
              devices: [2, 3],
              stream: 'tp',
              ...options,
            },
          ]
        : []),
    ],
  };
}

describe('shard_tensor scatter_gather_sends', () => {
  it('sends 1/n from each member and all-gathers on the receiving stage before its block', () => {
    const dag = after(bothStages({ scatter_gather_sends: true }), 'shard-tensor');
    // Forward: block 1's output to block 2; backward: block 2's input gradient to block 1.
    const forward = byId(dag, 'SEND.F.b1.mb0.d2');
    expect(forward).toMatchObject({ bytes: 5 });
    expect(succs(dag, 'RECV.F.b1.mb0.d2')).toEqual(['ALL_GATHER.tp.RECV.F.b1.mb0.d2']);
    expect(succs(dag, 'ALL_GATHER.tp.RECV.F.b1.mb0.d2')).toEqual(['F.b2.mb0']);
    const send = byId(dag, 'SEND.B.b2.mb0.d0');
    const recv = byId(dag, 'RECV.B.b2.mb0.d0');
    expect(send).toMatchObject({ bytes: 5 });
    expect(recv).toMatchObject({ bytes: 5 });
    expect(preds(dag, send.id)).toEqual(['ALL_REDUCE.tp.B.b2.mb0']);
    const gather = byId(dag, 'ALL_GATHER.tp.RECV.B.b2.mb0.d0') as CollectiveNode;
    expect(gather).toMatchObject({ devices: [0, 1], bytes: 10 });
    expect(preds(dag, gather.id)).toEqual([recv.id]);
    expect(succs(dag, recv.id)).toEqual([gather.id]);
  });

  it('sends the whole tensor without it, or when the receiving stage is not tensor parallel', () => {
    for (const design of [bothStages({}), bothStages({ scatter_gather_sends: true }, false)]) {
      const dag = after(design, 'shard-tensor');
      const sends = ofKind(dag, 'SEND') as { bytes: number }[];
      expect(sends.length).toBeGreaterThan(0);
      expect(sends.every((n) => n.bytes === 10)).toBe(true);
      expect(ofKind(dag, 'ALL_GATHER')).toEqual([]);
    }
  });

  it('under sequence parallelism sends the reduce-scatter’s shard, gathered by the receivers', () => {
    const dag = after(bothStages({ sequence_parallel: true }), 'shard-tensor');
    expect(preds(dag, 'SEND.B.b2.mb0.d0')).toEqual(['REDUCE_SCATTER.tp.B.b2.mb0']);
    expect(byId(dag, 'SEND.B.b2.mb0.d0')).toMatchObject({ bytes: 5 });
    expect(succs(dag, 'RECV.B.b2.mb0.d0')).toEqual(['ALL_GATHER.tp.RECV.B.b2.mb0.d0']);
    // No gather on the sending stage for a tensor only sent.
    expect(dag.nodes.find((n) => n.id === 'ALL_GATHER.tp.B.b2.mb0')).toBeUndefined();
  });

  it('under sequence parallelism gathers before sending to a stage that is not tensor parallel', () => {
    const dag = after(
      onTwoStages({
        op: 'shard_tensor',
        filter: { PP: 1, TP: '*' },
        devices: [2, 3],
        stream: 'tp',
        sequence_parallel: true,
      }),
      'shard-tensor',
    );
    expect(preds(dag, 'SEND.B.b2.mb0.d0')).toEqual(['ALL_GATHER.tp.B.b2.mb0']);
    expect(preds(dag, 'ALL_GATHER.tp.B.b2.mb0')).toEqual(['REDUCE_SCATTER.tp.B.b2.mb0']);
    expect(byId(dag, 'SEND.B.b2.mb0.d0')).toMatchObject({ bytes: 10 });
  });

  it('is refused at its path when not a boolean, and by the Piper export', () => {
    const bad = JSON.parse(JSON.stringify(bothStages({ scatter_gather_sends: true })));
    bad.directives[3].scatter_gather_sends = 1;
    const r = parseDesign(bad);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toContain('directives[3].scatter_gather_sends');
    const design = bothStages({ scatter_gather_sends: true });
    const c = compiled(design);
    const piper = exportPiperProgram(design, c.program, c.plan, c.dag);
    expect(piper.ok).toBe(false);
    if (!piper.ok) expect(piper.errors[0]!.path).toBe('directives[3].scatter_gather_sends');
  });
});
