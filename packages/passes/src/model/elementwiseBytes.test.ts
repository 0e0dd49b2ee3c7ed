import { resolveTransformer, type TransformerConfig, type TransformerModel } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { transformerUnits } from './transformerBlocks.ts';

function config(model: Omit<TransformerModel, 'kind'>): TransformerConfig {
  const r = resolveTransformer({ kind: 'transformer', ...model });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** The blocks of decoder layer `layer` of a model, by part. */
function layerBlocks(c: TransformerConfig, layer: number) {
  const unit = transformerUnits(c).find((u) => u.kind === 't' && u.layer === layer);
  if (!unit) throw new Error(`no layer ${layer}`);
  return Object.fromEntries(unit.blocks.map((b) => [b.part, b.elementwiseBytes]));
}

describe('elementwise kernels’ HBM bytes by block (fused as in Megatron with Transformer Engine)', () => {
  // Llama-3-8B at 8,192 tokens: h 4,096, 32 query and 8 KV heads of 128, f 14,336, BF16.
  const c = config({ preset: 'llama3-8b' });
  const t = 8192;
  const h = 4096;
  const B = 2;
  const { attention, mlp } = layerBlocks(c, 0);

  it('attention: norm (x, y; back dy, x, dx) and residual add (3 each way) on h; RoPE on Q and K', () => {
    expect(attention!.sequence).toEqual({ F: 5 * t * h * B, BI: 6 * t * h * B, BW: 0 });
    expect(attention!.split).toEqual({ F: 2 * t * (4096 + 1024) * B, BI: 2 * t * (4096 + 1024) * B, BW: 0 });
  });

  it('MLP: norm and residual add on h; fused SwiGLU reads gate and up and writes f (back: 5 × f)', () => {
    expect(mlp!.sequence).toEqual({ F: 5 * t * h * B, BI: 6 * t * h * B, BW: 0 });
    expect(mlp!.split).toEqual({ F: 3 * t * 14336 * B, BI: 5 * t * 14336 * B, BW: 0 });
  });

  it('head: the fused cross-entropy reads the BF16 logits and writes the fp32 softmax, and back', () => {
    const head = transformerUnits(c).at(-1)!.blocks[0]!.elementwiseBytes;
    expect(head.split).toEqual({ F: t * 128256 * (B + 4), BI: t * 128256 * (4 + B), BW: 0 });
    expect(head.sequence).toEqual({ F: 2 * t * h * B, BI: 3 * t * h * B, BW: 0 });
  });

  it('routed experts: permute and unpermute carry k copies, SwiGLU runs on every copy', () => {
    const q = config({ preset: 'qwen3-30b-a3b' });
    const tq = 4096;
    const hq = 2048;
    const { experts, router } = layerBlocks(q, 0);
    const k = 8;
    expect(experts!.sequence.F).toBe((2 * (1 + k) + 3) * tq * hq * B);
    expect(experts!.split).toEqual({ F: 3 * k * tq * 768 * B, BI: 5 * k * tq * 768 * B, BW: 0 });
    // The router's softmax and top-k over 128 fp32 logits, and the layer's residual gradient.
    expect(router!.sequence.F).toBe(2 * tq * hq * B + 8 * tq * 128);
    expect(router!.sequence.BI).toBe(6 * tq * hq * B + 12 * tq * 128);
  });
});
