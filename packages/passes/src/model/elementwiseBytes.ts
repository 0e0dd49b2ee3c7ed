/**
 * HBM bytes a transformer block's memory-bound kernels move per pass, counted as Megatron-LM with
 * Transformer Engine runs them with the fusions Megatron-Bridge's recipes turn on (persistent
 * RMSNorm, fused SwiGLU, bias-dropout-add, fused RoPE, fused permutation, fused cross-entropy):
 * each fused kernel reads its inputs and writes its outputs once. The attention core's traffic is
 * inside FlashAttention's measured efficiency, the GEMMs' in their roofline. Formulas and sources:
 * docs/cost-model.md, "Elementwise kernels by their bytes".
 */
import type { ElementwiseBytes, PerPass } from '@stagecraft/ir';

/** Bytes per element of the fp32 softmaxes (router probabilities, the loss's softmax). */
const FP32 = 4;

const none = (): PerPass => ({ F: 0, BI: 0, BW: 0 });

/** F and BI bytes, no BW (weight gradients are GEMMs). */
const pass = (F: number, BI: number): PerPass => ({ F, BI, BW: 0 });

/**
 * An RMSNorm over `width` per token: F reads x and writes y (2 elements), BI reads dy and x and
 * writes dx (3); its weight is negligible beside t tokens.
 */
export function normBytes(tokens: number, width: number, e: number): PerPass {
  return pass(2 * tokens * width * e, 3 * tokens * width * e);
}

/**
 * The residual add (bias-dropout-add, one kernel): F reads the branch and the residual and writes
 * the sum; in BI the residual stream's gradient is accumulated with the branch's (read two, write one).
 */
export function residualBytes(tokens: number, h: number, e: number): PerPass {
  return pass(3 * tokens * h * e, 3 * tokens * h * e);
}

/** Fused RoPE over `width` rotated elements per token: read and write them in F and again in BI. */
export function ropeBytes(tokens: number, width: number, e: number): PerPass {
  return pass(2 * tokens * width * e, 2 * tokens * width * e);
}

/**
 * Fused SwiGLU of `f` per token: F reads gate and up, writes the product (3); BI reads the output
 * gradient, gate and up and writes both input gradients (5).
 */
export function swigluBytes(tokens: number, f: number, e: number): PerPass {
  return pass(3 * tokens * f * e, 5 * tokens * f * e);
}

/** Sum of per-pass byte counts. */
export function sumBytes(...parts: PerPass[]): PerPass {
  const out = none();
  for (const p of parts) {
    out.F += p.F;
    out.BI += p.BI;
    out.BW += p.BW;
  }
  return out;
}

/** A block's bytes by class (ElementwiseBytes): on the whole hidden state, on split widths. */
export function classed(sequence: PerPass, split: PerPass = none()): ElementwiseBytes {
  return { sequence, split };
}

/**
 * Router: the fp32 softmax and top-k over E logits per token, read and written in F (2 × 4 B),
 * the probabilities, their gradient and the logits' gradient in BI (3 × 4 B).
 */
export function routerSoftmaxBytes(tokens: number, experts: number): PerPass {
  return pass(2 * FP32 * tokens * experts, 3 * FP32 * tokens * experts);
}

/**
 * Fused token permutation around the routed experts (moe_permute_fusion): permute reads each token
 * once and writes its k copies, unpermute reads the k copies and writes the combined token; the
 * backward runs both the other way.
 */
export function permutationBytes(tokens: number, h: number, topK: number, e: number): PerPass {
  const one = (1 + topK) * tokens * h * e;
  return pass(2 * one, 2 * one);
}

/**
 * Fused vocabulary-parallel cross-entropy over V logits per token: F reads the logits and writes
 * the fp32 softmax the backward reads (the stash counts it); BI reads it and writes the logits'
 * gradient.
 */
export function crossEntropyBytes(tokens: number, vocab: number, e: number): PerPass {
  return pass(tokens * vocab * (e + FP32), tokens * vocab * (FP32 + e));
}

/**
 * Embedding: the lookup reads and writes a row per token (F); the weight gradient's scatter-add
 * reads the output gradient and reads and writes a gradient row per token (BW).
 */
export function embeddingBytes(tokens: number, h: number, e: number): PerPass {
  return { F: 2 * tokens * h * e, BI: 0, BW: 3 * tokens * h * e };
}
