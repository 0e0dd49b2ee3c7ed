import {
  gemmFlops,
  resolveTransformer,
  TRANSFORMER_PRESET_NAMES,
  type TransformerConfig,
  type TransformerModel,
  transformerSchema,
} from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { parameterCounts, transformerBlockCount, transformerUnits } from './transformerBlocks.ts';

function config(model: Omit<TransformerModel, 'kind'>): TransformerConfig {
  const r = resolveTransformer({ kind: 'transformer', ...model });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** Published totals (model cards / papers); a preset is within 1% of each. */
const PUBLISHED: [preset: string, totalB: number, activeB?: number][] = [
  ['llama3-8b', 8.03],
  ['llama3-70b', 70.6],
  ['llama3.1-405b', 405],
  ['qwen3-8b', 8.2],
  ['qwen3-30b-a3b', 30.5, 3.3],
  ['mixtral-8x7b', 46.7, 12.9],
  ['deepseek-v3', 671, 37],
];

describe('preset parameter counts match the published totals within 1% (active within 2%)', () => {
  it.each(PUBLISHED)('%s has %f B parameters', (preset, totalB, activeB) => {
    const p = parameterCounts(config({ preset }));
    expect(Math.abs(p.total / 1e9 - totalB) / totalB).toBeLessThan(0.01);
    if (activeB !== undefined) expect(Math.abs(p.active / 1e9 - activeB) / activeB).toBeLessThan(0.02);
    else expect(p.active).toBe(p.total);
  });

  it('GPT-OSS 120B has its 116.83 B, and 5.13 B active counted as OpenAI does (no input embedding)', () => {
    // openai/gpt-oss model card: 116.83 B total, 5.13 B active per token; the input embedding is a
    // lookup, left out of the active count, while the output head is in it.
    const c = config({ preset: 'gpt-oss-120b' });
    const p = parameterCounts(c);
    expect(Math.abs(p.total / 1e9 - 116.83) / 116.83).toBeLessThan(0.01);
    expect(Math.abs((p.active - c.vocab * c.hidden) / 1e9 - 5.13) / 5.13).toBeLessThan(0.02);
  });

  it('DeepSeek-V3 with its MTP module is the 685 B of the released checkpoint', () => {
    const p = parameterCounts(config({ preset: 'deepseek-v3' }));
    expect(Math.abs((p.total + p.mtp) / 1e9 - 685) / 685).toBeLessThan(0.01);
  });
});

/**
 * A model small enough to compute by hand: h=8, f=16, 2 heads of 4 (1 KV head), vocab 10,
 * 2 sequences of 4 tokens (t = 8 tokens per microbatch), bf16.
 */
const TINY = {
  layers: 2,
  hidden: 8,
  ffnHidden: 16,
  heads: 2,
  kvHeads: 1,
  vocab: 10,
  seqLen: 4,
  microbatchSize: 2,
};

function blocksOf(model: Omit<TransformerModel, 'kind'>) {
  return transformerUnits(config(model)).flatMap((u) => u.blocks);
}

describe('per-block formulas on a tiny config', () => {
  it('lowers to embedding, attention + MLP per layer, head', () => {
    expect(blocksOf(TINY).map((b) => b.name)).toEqual([
      'embedding',
      'layer 0 attention',
      'layer 0 mlp',
      'layer 1 attention',
      'layer 1 mlp',
      'head',
    ]);
  });

  it('GQA attention: projections 2·t·(h·(hq+2hkv) + hq·h), causal core 2·t·s·a·(dqk+dv)/2, no BW for the core', () => {
    const a = blocksOf(TINY)[1]!;
    // proj = 2·8·(8·(8+2·4) + 8·8) = 3072; core = 2·8·4·2·(4+4)·½ = 512
    expect(a.flops).toEqual({ F: 3072 + 512, BI: 3072 + 2 * 512, BW: 3072 });
    expect(a.params).toBe(192 + 8);
    expect(a.paramBytes).toBe(400);
    // t·(2h + 2hq + 2hkv)·2 B + t·a·4 B (log-sum-exp) = 8·40·2 + 64
    expect(a.activationBytes).toBe(704);
    expect(a.recomputeActivationBytes).toBe(8 * 8 * 2);
    expect(a.outputBytes).toBe(8 * 8 * 2);
  });

  it('sliding-window attention: a windowed layer attends to w − w²/(2s) keys, every fullEvery-th layer to s/2', () => {
    const windowed = blocksOf({ ...TINY, slidingWindow: { tokens: 2, fullEvery: 2 } });
    const [first, second] = windowed.filter((b) => b.name.endsWith('attention'));
    // Layer 1 (counted from 1) keeps the window: core = 2·8·(2 − 4/8)·2·(4+4) = 384; layer 2 is full.
    expect(first!.flops).toEqual({ F: 3072 + 384, BI: 3072 + 2 * 384, BW: 3072 });
    expect(second!.flops).toEqual(blocksOf(TINY)[1]!.flops);
    // A window as long as the sequence is the causal mask itself.
    const whole = blocksOf({ ...TINY, slidingWindow: { tokens: 4, fullEvery: 2 } });
    expect(whole.map((b) => b.flops)).toEqual(blocksOf(TINY).map((b) => b.flops));
  });

  it('a sliding window of no tokens is refused at its field', () => {
    const r = resolveTransformer({
      kind: 'transformer',
      ...TINY,
      slidingWindow: { tokens: 128, fullEvery: 2 },
    });
    expect(r.ok).toBe(true);
    const bad = transformerSchema.safeParse({
      kind: 'transformer',
      ...TINY,
      slidingWindow: { tokens: 0, fullEvery: 2 },
    });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['slidingWindow', 'tokens']);
  });

  it('SwiGLU MLP: 2·t·3·h·f for F, BI and BW; stash t·(2h + 3f) elements', () => {
    const m = blocksOf(TINY)[2]!;
    expect(m.flops).toEqual({ F: 6144, BI: 6144, BW: 6144 });
    expect(m.params).toBe(3 * 8 * 16 + 8);
    expect(m.activationBytes).toBe(8 * (16 + 48) * 2);
  });

  it('embedding has no FLOPs; the head is 2·t·h·V and keeps fp32 softmax of the logits', () => {
    const bs = blocksOf(TINY);
    const e = bs[0]!;
    expect(e.flops).toEqual({ F: 0, BI: 0, BW: 0 });
    expect(e.params).toBe(80);
    expect(e.activationBytes).toBe(8 * 8);
    const h = bs[5]!;
    expect(h.flops).toEqual({ F: 1280, BI: 1280, BW: 1280 });
    expect(h.params).toBe(80 + 8);
    expect(h.activationBytes).toBe(2 * 8 * 8 * 2 + 8 * 10 * 4);
    expect(h.outputBytes).toBe(0);
  });

  it('MoE layer: router, shared experts, routed experts at topK; dense first layers', () => {
    const bs = blocksOf({
      ...TINY,
      moe: { experts: 4, topK: 2, expertFfnHidden: 6, sharedExperts: 1, denseLayers: 1 },
    });
    expect(bs.map((b) => b.part)).toEqual([
      'embedding',
      'attention',
      'mlp',
      'attention',
      'router',
      'shared-experts',
      'experts',
      'head',
    ]);
    const [router, shared, experts] = [bs[4]!, bs[5]!, bs[6]!];
    expect(router.flops.F).toBe(2 * 8 * 8 * 4);
    expect(router.params).toBe(8 * 4 + 8);
    expect(router.activationBytes).toBe(2 * 8 * 8 * 2 + 8 * 4 * 4);
    expect(shared.flops).toEqual({ F: 2304, BI: 2304, BW: 2304 });
    expect(shared.activationBytes).toBe(3 * 8 * 6 * 2);
    expect(experts.flops).toEqual({ F: 4608, BI: 4608, BW: 4608 });
    expect(experts.params).toBe(4 * 144);
    expect(experts.activeParams).toBe(2 * 144);
    expect(experts.activationBytes).toBe(2 * (8 * 8 * 2 + 3 * 8 * 6 * 2));
  });

  it('MLA attention: low-rank projections and qk = nope + rope', () => {
    const a = blocksOf({
      ...TINY,
      kvHeads: 2,
      mla: { qLoraRank: 4, kvLoraRank: 4, qkNopeHeadDim: 2, qkRopeHeadDim: 2, vHeadDim: 2 },
    })[1]!;
    // q 8·4 + 4·2·4 = 64; kv 8·(4+2) + 4·2·(2+2) = 80; o 2·2·8 = 32
    const proj = 2 * 8 * (64 + 80 + 32);
    const core = 2 * 8 * 4 * 2 * (4 + 2) * 0.5;
    expect(a.flops).toEqual({ F: proj + core, BI: proj + 2 * core, BW: proj });
    expect(a.params).toBe(176 + 8 + 4 + 4);
    expect(a.activationBytes).toBe(8 * (16 + 8 + 10 + 2 * (8 + 4)) * 2 + 8 * 2 * 4);
  });

  it('an MTP module is projection, a layer and its own head, numbered after the last layer', () => {
    const units = transformerUnits(config({ ...TINY, mtpLayers: 1 }));
    expect(units.map((u) => u.kind)).toEqual(['E', 't', 't', 'm', 'L']);
    const m = units[3]!;
    expect(m.layer).toBe(2);
    expect(m.blocks.map((b) => b.part)).toEqual(['mtp-projection', 'attention', 'mlp', 'head']);
    expect(m.blocks[0]!.flops.F).toBe(2 * 8 * 16 * 8);
  });

  it('a tied head is counted once', () => {
    const untied = parameterCounts(config(TINY)).total;
    expect(parameterCounts(config({ ...TINY, tiedEmbeddings: true })).total).toBe(untied - 80);
  });

  it('a dense model does 6·N·t plus attention per microbatch (F+BI+BW)', () => {
    const c = config({ preset: 'llama3-8b' });
    const t = c.seqLen;
    let work = 0;
    for (const b of blocksOf({ preset: 'llama3-8b' })) work += b.flops.F + b.flops.BI + b.flops.BW;
    const p = parameterCounts(c);
    const nonEmbedding = p.total - c.vocab * c.hidden;
    const attention = 3 * c.layers * 2 * t * t * c.heads * 2 * c.headDim * 0.5;
    expect(work).toBeCloseTo(6 * nonEmbedding * t - 6 * t * (2 * c.layers + 1) * c.hidden + attention, -6);
  });
});

describe('blocks carry the GEMMs their FLOPs come from', () => {
  it.each(PUBLISHED.map(([preset]) => preset))(
    '%s: every block’s forward GEMMs sum to its F FLOPs (attention: all but the core)',
    (preset) => {
      const c = config({ preset, seqLen: 1024 });
      for (const u of transformerUnits(c))
        for (const b of u.blocks) {
          const inGemms = gemmFlops(b.gemms);
          if (b.part === 'attention') {
            expect(inGemms).toBeLessThan(b.flops.F);
            expect(inGemms).toBeCloseTo(b.flops.BW, 0);
          } else expect(inGemms / Math.max(b.flops.F, 1)).toBeCloseTo(b.flops.F === 0 ? 0 : 1, 9);
        }
    },
  );

  it('routed experts are one grouped GEMM per projection over all experts, t·k/E tokens each', () => {
    const c = config({ preset: 'qwen3-30b-a3b', seqLen: 4096 });
    const experts = transformerUnits(c)[1]!.blocks.find((b) => b.part === 'experts')!;
    expect(experts.gemms.map(({ m, n, k, count }) => ({ m, n, k, count }))).toEqual([
      { m: (4096 * 8) / 128, n: 2 * 768, k: 2048, count: 128 },
      { m: (4096 * 8) / 128, n: 2048, k: 768, count: 128 },
    ]);
  });
});

describe('transformerBlockCount counts the blocks transformerUnits makes', () => {
  const made = (c: TransformerConfig) => transformerUnits(c).reduce((n, u) => n + u.blocks.length, 0);

  it.each(TRANSFORMER_PRESET_NAMES)('%s', (preset) => {
    const c = config({ preset });
    expect(transformerBlockCount(c)).toBe(made(c));
  });

  it.each([
    ['dense layers first, MTP modules on MoE layers', { preset: 'deepseek-v3', layers: 5, mtpLayers: 2 }],
    [
      'shared experts',
      { preset: 'qwen3-30b-a3b', layers: 3, moe: { sharedExperts: 1, sharedExpertFfnHidden: 64 } },
    ],
    [
      'every layer dense, the MTP module MoE',
      { preset: 'deepseek-v3', layers: 2, mtpLayers: 1, moe: { denseLayers: 2 } },
    ],
    ['a dense model with MTP', { preset: 'llama3-8b', layers: 2, mtpLayers: 1 }],
  ] as const)('%s', (_, model) => {
    const c = config(model as Omit<TransformerModel, 'kind'>);
    expect(transformerBlockCount(c)).toBe(made(c));
  });

  it('counts a model too large to lower without lowering it', () => {
    expect(transformerBlockCount(config({ preset: 'llama3-8b', layers: 1e12 }))).toBe(2e12 + 2);
  });
});
