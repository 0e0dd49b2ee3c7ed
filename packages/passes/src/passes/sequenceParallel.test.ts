import { type CollectiveNode, type Design, parseDesign } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { tp8Layer as llamaLayer } from '../../../../test/tensorParallelDesigns.ts';
import { after, byId, compiled, ofKind, onTwoStages, preds, succs } from '../../test/parallelDesigns.ts';
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
