/**
 * The kernels a compute op launches: its GEMMs by shape, how many other kernels it launches and the
 * dtype its GEMMs run in. The cost model times a GEMM by a roofline of its shape (docs/cost-model.md,
 * "Compute by GEMM shape"); a total FLOP count cannot tell a thin expert GEMM from a big dense one.
 * Blocks carry their forward GEMMs; the backward's are derived from them by op (dag/opKernels.ts).
 */
import * as z from 'zod';

/**
 * C[m × n] = A[m × k] · B[k × n], `count` independent problems of that shape in one launch (a
 * grouped GEMM: Megatron-LM runs a device's local experts as one). Dimensions may be fractional
 * (tokens per expert under uniform routing is an average).
 */
export const gemmSchema = z.strictObject({
  m: z.number().finite().positive(),
  n: z.number().finite().positive(),
  k: z.number().finite().positive(),
  count: z.number().finite().positive().optional(),
});
export type Gemm = z.infer<typeof gemmSchema>;

/**
 * The attention core (FlashAttention) an op runs beside its GEMMs: the queries' sequence length
 * (each member's share under context parallelism) and the pass, which its efficiency depends on.
 * Its FLOPs are the op's FLOPs outside the GEMMs.
 */
export const attentionKernelSchema = z.strictObject({
  seqLen: z.number().finite().positive(),
  pass: z.enum(['forward', 'backward']),
});
export type AttentionKernel = z.infer<typeof attentionKernelSchema>;

/** What one compute instruction launches (plan field `kernels`). */
export const opKernelsSchema = z.strictObject({
  gemms: z.array(gemmSchema),
  /** Kernels besides the GEMMs (norms, activations, attention core, permutations). */
  otherLaunches: z.number().int().min(0),
  dtype: z.enum(['bf16', 'fp16', 'fp32', 'fp8']),
  attention: attentionKernelSchema.optional(),
  /**
   * HBM bytes its memory-bound kernels (norms, activations, RoPE, residual adds, permutations, the
   * loss) read and write; absent: 0 (docs/cost-model.md, "Elementwise kernels by their bytes").
   */
  elementwiseBytes: z.number().finite().min(0).optional(),
});
export type OpKernels = z.infer<typeof opKernelsSchema>;

/** A forward GEMM of a block and the dimension tensor parallelism divides (`n` column-, `k` row-parallel). */
export interface BlockGemm extends Gemm {
  split: 'n' | 'k';
}

/** A quantity per pass of a block (F, BI, BW). */
export interface PerPass {
  F: number;
  BI: number;
  BW: number;
}

/**
 * HBM bytes a block's memory-bound kernels move per pass, by what divides them: `sequence` on the
 * whole hidden state of each token (norms, residual adds: tensor parallelism divides them only
 * with sequence parallelism), `split` on widths tensor parallelism divides (SwiGLU on f/t, RoPE on
 * the local heads, the vocabulary-parallel loss). Context parallelism divides both.
 */
export interface ElementwiseBytes {
  sequence: PerPass;
  split: PerPass;
}

/** A block's kernels for one microbatch: its forward GEMMs and the other launches of each pass. */
export interface BlockKernels {
  gemms: BlockGemm[];
  otherLaunches: PerPass;
  dtype: OpKernels['dtype'];
  /** Bytes its memory-bound kernels move; undefined: not charged (models with given costs). */
  elementwiseBytes?: ElementwiseBytes;
  /** Attention blocks: the queries' sequence length its core runs over (F and BI run it). */
  attentionSeqLen?: number;
}

/** FLOPs of a list of GEMMs: 2·m·n·k per problem. */
export function gemmFlops(gemms: readonly Gemm[]): number {
  let f = 0;
  for (const g of gemms) f += 2 * g.m * g.n * g.k * (g.count ?? 1);
  return f;
}
