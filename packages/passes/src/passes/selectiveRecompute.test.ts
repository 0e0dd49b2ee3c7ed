import { type ComputeNode, type Design, parseDesign, resolveTransformer } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { after, byId, compiled, errorsOf } from '../../test/parallelDesigns.ts';

/** DeepSeek-V3's shapes, one dense layer and one MoE layer, on one GPU; `extra` directives after the placement. */
function deepseek(extra: Design['directives'], dispatch?: 'fp8'): Design {
  const devices = [0, 1];
  return {
    format: 'stagecraft/design@2',
    name: 'deepseek selective',
    model: {
      kind: 'transformer',
      preset: 'deepseek-v3',
      layers: 2,
      mtpLayers: 0,
      seqLen: 1024,
      moe: { denseLayers: 1 },
      annotate: { PP: 1 },
    },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      { op: 'place', filter: {}, devices },
      { op: 'shard', filter: { EP: '*' }, devices, ...(dispatch ? { dispatch_dtype: dispatch } : {}) },
      ...extra,
    ],
  };
}

const PARTS = ['norm', 'mla_up_projection', 'swiglu'] as const;
const t = 1024;
const config = () => {
  const r = resolveTransformer({ kind: 'transformer', preset: 'deepseek-v3' });
  if (!r.ok) throw new Error('preset');
  return r.config;
};

describe('recompute with ops (selective recomputation)', () => {
  const design = deepseek([{ op: 'recompute', filter: {}, ops: [...PARTS] }]);
  const dag = after(design, 'recompute');
  const blocks = dag.blocks;
  const attention = blocks.findIndex((b) => b.name === 'layer 0 attention');

  it('keeps the stash but the named parts, re-makes them before the backward, and frees all of it there', () => {
    const c = config();
    const m = c.mla!;
    const a = blocks[attention]!;
    // MLA: the input norm's and both latent norms' outputs; K and V from the kv latent and Q from the q latent.
    const norms = t * (c.hidden + m.qLoraRank! + m.kvLoraRank) * 2;
    const up = t * c.heads * (2 * (m.qkNopeHeadDim + m.qkRopeHeadDim) + m.vHeadDim) * 2;
    const f = byId(dag, `F.b${attention}.mb0`) as ComputeNode;
    const r = byId(dag, `RECOMPUTE.b${attention}.mb0`) as ComputeNode;
    const b = byId(dag, `B.b${attention}.mb0`) as ComputeNode;
    expect(f.allocBytes).toBe(a.activationBytes - norms - up);
    expect(r.allocBytes).toBe(norms + up);
    expect(b.freeBytes).toBe(a.activationBytes);
  });

  it('re-runs only the selected GEMMs and kernels: MLA up-projections, no down-projection, no attention core', () => {
    const c = config();
    const m = c.mla!;
    const plan = compiled(design).plan;
    const all = plan.devices[0]!.streams.flatMap((s) => s.instructions);
    const r = all.find((i) => i.id === `RECOMPUTE.b${attention}.mb0`);
    const f = all.find((i) => i.id === `F.b${attention}.mb0`);
    if (r?.op !== 'RECOMPUTE' || f?.op !== 'F') throw new Error('no recompute');
    const qk = m.qkNopeHeadDim + m.qkRopeHeadDim;
    const upFlops =
      2 * t * (m.qLoraRank! * c.heads * qk + m.kvLoraRank * c.heads * (m.qkNopeHeadDim + m.vHeadDim));
    expect(r.flops).toBeCloseTo(upFlops, -3);
    expect(r.kernels?.gemms).toHaveLength(2);
    // Three norms and RoPE.
    expect(r.kernels?.otherLaunches).toBe(4);
    expect(r.flops!).toBeLessThan(f.flops!);
  });

  it('keeps a block with none of the parts as it was: no RECOMPUTE for the embedding', () => {
    expect(dag.nodes.some((n) => n.id === 'RECOMPUTE.b0.mb0')).toBe(false);
    expect(dag.nodes.some((n) => n.id.startsWith('RECOMPUTE.'))).toBe(true);
  });

  it('does not repeat the all-to-all or any collective', () => {
    expect(dag.nodes.some((n) => n.id.includes('.RECOMPUTE.'))).toBe(false);
  });

  it('refuses a part no matched block has, at the part', () => {
    expect(errorsOf(deepseek([{ op: 'recompute', filter: { EP: '*' }, ops: ['norm', 'swiglu'] }]))).toEqual([
      'directives[3].ops[0]: no block the filter matches has a norm to recompute',
    ]);
    const llama: Design = {
      format: 'stagecraft/design@2',
      name: 'llama',
      model: { kind: 'transformer', preset: 'llama3-8b', layers: 1, seqLen: 1024, annotate: { PP: 1 } },
      cluster: { preset: 'dgx-h100', nodes: 1 },
      directives: [
        { op: 'place', filter: {}, devices: [0] },
        { op: 'recompute', filter: {}, ops: ['mla_up_projection'] },
      ],
    };
    expect(errorsOf(llama)).toEqual([
      'directives[1].ops[0]: no block the filter matches has a mla_up_projection to recompute (only multi-head latent attention has up-projections)',
    ]);
  });

  it('refuses one block recomputed two ways', () => {
    const errors = errorsOf(
      deepseek([
        { op: 'recompute', filter: { MB: 0 }, ops: ['norm'] },
        { op: 'recompute', filter: { MB: 1 } },
      ]),
    );
    expect(errors[0]).toMatch(
      /^directives\[4\]\.filter: block 0 \(embedding\) is recomputed with ops \[norm\] by directives\[3\]/,
    );
  });

  it('refuses an empty list at its path', () => {
    const r = parseDesign(deepseek([{ op: 'recompute', filter: {}, ops: [] }]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toEqual(['directives[3].ops']);
  });
});

describe('shard with dispatch_dtype', () => {
  it('stashes the routed tokens’ copies as dispatched: FP8 halves them', () => {
    const c = config();
    const bf16 = compiled(deepseek([])).dag;
    const fp8 = compiled(deepseek([], 'fp8')).dag;
    const experts = bf16.blocks.findIndex((b) => b.name === 'layer 1 experts');
    const copies = c.moe!.topK * t * c.hidden * 2;
    expect(bf16.blocks[experts]!.activationBytes - fp8.blocks[experts]!.activationBytes).toBe(copies / 2);
    const f8 = after(deepseek([], 'fp8'), 'shard');
    const f16 = after(deepseek([]), 'shard');
    const f = `F.b${experts}.mb0`;
    expect((byId(f16, f) as ComputeNode).allocBytes - (byId(f8, f) as ComputeNode).allocBytes).toBe(
      copies / 2,
    );
    const b = `B.b${experts}.mb0`;
    expect((byId(f16, b) as ComputeNode).freeBytes - (byId(f8, b) as ComputeNode).freeBytes).toBe(copies / 2);
  });
});
