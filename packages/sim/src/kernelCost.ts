/**
 * How long a compute op's kernels take on one GPU: each GEMM by a roofline of its shape at the
 * fraction of peak a large GEMM of its dtype is measured to sustain, FP8's casts, the attention
 * core at FlashAttention's measured efficiency by sequence length and pass, and every launch.
 * Sources of every constant: docs/cost-model.md, "Compute by GEMM shape".
 */
import { DTYPE_BYTES, type Gemm, type OpKernels } from '@stagecraft/ir';

/** A GPU as the kernel timings read it (rates per millisecond). */
export interface GemmGpu {
  /** Dense BF16 peak, FLOP/ms. */
  peakFlopsPerMs: number;
  /** Dense FP8 peak, FLOP/ms (the BF16 peak on a GPU without FP8 tensor cores). */
  fp8PeakFlopsPerMs: number;
  /** Fraction of the BF16 peak a large, tile-aligned GEMM sustains. */
  achievableFraction: number;
  /** Fraction of the FP8 peak a large FP8 GEMM sustains. */
  fp8AchievableFraction: number;
  /** FlashAttention's fraction of the BF16 peak on long causal sequences; undefined: `achievableFraction`. */
  attentionFraction?: { forward: number; backward: number };
  /** Streaming multiprocessors (wave quantization); undefined: not modelled. */
  sms?: number;
  /** HBM bytes per ms; undefined: no memory bound. */
  memoryBytesPerMs?: number;
  /** HBM bytes per ms a streaming (elementwise) kernel achieves; undefined: its bytes cost nothing. */
  streamBytesPerMs?: number;
}

/**
 * Host-side cost of one kernel launch, during which the GPU idles between two short kernels of an
 * eager (not CUDA-graph-captured) training step: 4 µs, between the ~1 µs gap of back-to-back
 * launches and the ~10 µs CPU dispatch of an eager PyTorch op (docs/cost-model.md, "Compute by
 * GEMM shape", gives the sources).
 */
export const KERNEL_LAUNCH_MS = 0.004;

/**
 * The output tile a tensor-core GEMM kernel computes per thread block: 128 × 128, the tile
 * NVIDIA's "Matrix Multiplication Background" guide and CUTLASS's default H100/A100 BF16
 * configurations use; a dimension that is not a multiple of it wastes the rest of its last tile.
 */
export const GEMM_TILE = 128;

/**
 * Sequence length at which FlashAttention reaches half its long-sequence throughput: 228 tokens,
 * fitted (s / (s + 228)) to FlashAttention-3's measured forward on H100 at head dimension 128,
 * 430 → 621 TFLOP/s from 512 to 16,384 tokens (pytorch/benchmark PR #2391); the fit is within 2% at
 * every length there. Shorter sequences give each thread block fewer key blocks to amortise its
 * query tile's load and the softmax rescaling over.
 */
export const ATTENTION_HALF_SEQ = 228;

/**
 * Bytes an FP8 cast moves per element: a BF16 read and an FP8 write (Transformer Engine's fused
 * cast-transpose also takes the amax in the same pass).
 */
export const FP8_CAST_BYTES_PER_ELEMENT = DTYPE_BYTES.bf16 + DTYPE_BYTES.fp8;

/**
 * A compute op by its kernels: each GEMM by its roofline (gemmMs) and, in FP8, the cast of its
 * activation operand; the attention core at FlashAttention's efficiency (attentionMs) or, on an op
 * that does not say it is attention, the FLOPs outside GEMMs at the sustained BF16 rate; its
 * memory-bound kernels by their bytes (elementwiseMs); and every kernel's launch overhead.
 */
export function kernelsMs(flops: number, k: OpKernels, gpu: GemmGpu): number {
  let ms = 0;
  let inGemms = 0;
  let casts = 0;
  for (const g of k.gemms) {
    ms += gemmMs(g, k.dtype, gpu);
    inGemms += 2 * g.m * g.n * g.k * (g.count ?? 1);
    if (k.dtype === 'fp8') {
      ms += fp8CastMs(g, gpu);
      casts++;
    }
  }
  // Rounding can leave the GEMMs a hair above the op's FLOPs: never a negative rest.
  const rest = Math.max(0, flops - inGemms);
  ms += attentionMs(rest, k.attention, gpu);
  ms += elementwiseMs(k.elementwiseBytes ?? 0, gpu);
  return ms + (k.gemms.length + casts + k.otherLaunches) * KERNEL_LAUNCH_MS;
}

/**
 * Efficiency of a GEMM shape relative to a large one (NVIDIA, "Matrix Multiplication Background",
 * tile and wave quantization): the useful fraction of its 128 × 128 output tiles, times the
 * fraction of the SMs its last wave of tiles keeps busy. 1 for a large, tile-aligned GEMM.
 */
export function shapeEfficiency(g: Gemm, sms: number | undefined): number {
  const tm = Math.ceil(g.m / GEMM_TILE);
  const tn = Math.ceil(g.n / GEMM_TILE);
  const tile = (g.m * g.n) / (tm * tn * GEMM_TILE * GEMM_TILE);
  if (sms === undefined) return tile;
  const tiles = tm * tn * Math.ceil(g.count ?? 1);
  const wave = tiles / (Math.ceil(tiles / sms) * sms);
  return tile * wave;
}

/** The rate a large GEMM of this dtype sustains, FLOP/ms: its peak times its measured fraction. */
export function gemmRate(dtype: OpKernels['dtype'], gpu: GemmGpu): number {
  return dtype === 'fp8'
    ? gpu.fp8PeakFlopsPerMs * gpu.fp8AchievableFraction
    : gpu.peakFlopsPerMs * gpu.achievableFraction;
}

/**
 * Roofline of one GEMM: max(FLOPs / (large-GEMM rate × shape efficiency), bytes moved / HBM
 * bandwidth), the bytes being A, B and C once each (m·k + k·n + m·n elements per problem).
 */
export function gemmMs(g: Gemm, dtype: OpKernels['dtype'], gpu: GemmGpu): number {
  const count = g.count ?? 1;
  const computeBound = (2 * g.m * g.n * g.k * count) / (gemmRate(dtype, gpu) * shapeEfficiency(g, gpu.sms));
  if (gpu.memoryBytesPerMs === undefined) return computeBound;
  const bytes = DTYPE_BYTES[dtype] * count * (g.m * g.k + g.k * g.n + g.m * g.n);
  return Math.max(computeBound, bytes / gpu.memoryBytesPerMs);
}

/**
 * Transformer Engine's cast of an FP8 GEMM's activation operand A (m × k, from BF16, its amax
 * taken in the same pass): memory-bound, FP8_CAST_BYTES_PER_ELEMENT per element over HBM. The
 * weight operand's cast is not charged: Megatron-LM casts a weight once per step and reuses it
 * across microbatches (`is_first_microbatch`). No HBM bandwidth: no time.
 */
export function fp8CastMs(g: Gemm, gpu: GemmGpu): number {
  if (gpu.memoryBytesPerMs === undefined) return 0;
  return (FP8_CAST_BYTES_PER_ELEMENT * g.m * g.k * (g.count ?? 1)) / gpu.memoryBytesPerMs;
}

/**
 * FlashAttention's fraction of its long-sequence rate at a causal sequence of `seqLen` queries:
 * s / (s + ATTENTION_HALF_SEQ) with s = seqLen / 2, the keys a causal query attends on average.
 */
export function attentionSeqEfficiency(seqLen: number): number {
  const s = seqLen / 2;
  return s / (s + ATTENTION_HALF_SEQ);
}

/**
 * The attention core's FLOPs (an op's FLOPs outside its GEMMs): at FlashAttention's measured
 * fraction of the BF16 peak for the pass, lowered for short sequences, on a GPU that gives one and
 * an op that says it runs attention; otherwise at the large-GEMM BF16 rate.
 */
export function attentionMs(flops: number, attention: OpKernels['attention'], gpu: GemmGpu): number {
  if (flops === 0) return 0;
  const fa = gpu.attentionFraction;
  if (attention === undefined || fa === undefined) return flops / gemmRate('bf16', gpu);
  const fraction = attention.pass === 'forward' ? fa.forward : fa.backward;
  return flops / (gpu.peakFlopsPerMs * fraction * attentionSeqEfficiency(attention.seqLen));
}

/**
 * Memory-bound kernels (norms, activations, RoPE, residual adds, permutations, the loss): the HBM
 * bytes they read and write at the bandwidth a streaming kernel achieves. Their arithmetic is a few
 * operations per element, far below H100's or A100's ridge point, so bytes alone set their time.
 * No achieved bandwidth: no time (their launches are still charged by kernelsMs).
 */
export function elementwiseMs(bytes: number, gpu: GemmGpu): number {
  if (bytes === 0 || gpu.streamBytesPerMs === undefined) return 0;
  return bytes / gpu.streamBytesPerMs;
}
