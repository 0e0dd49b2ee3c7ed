import * as z from 'zod';
import { checkClusterPreset } from './clusterPresets.ts';

/**
 * Host time a runtime spends issuing each instruction (its loop, Python dispatch, waits
 * bookkeeping), in ms: a unit that occupies its stream starts its work this long after it is
 * ready (docs/cost-model.md). Absent: 0, as every design before it meant.
 */
const dispatchMs = z.number().finite().min(0).optional();

/** Free communication (optionally a fixed latency per transfer) and unlimited memory: the oracle cluster. */
export const idealClusterSchema = z.strictObject({
  kind: z.literal('ideal'),
  devices: z.number().int().min(1),
  p2pLatencyMs: z.number().finite().min(0).optional(),
  dispatchMs,
});

export const linkSchema = z.strictObject({
  bandwidthGBps: z.number().finite().positive(),
  latencyUs: z.number().finite().min(0),
});

export const gpuSchema = z.strictObject({
  name: z.string().optional(),
  /** Dense BF16/FP16 tensor-core peak. */
  peakTflops: z.number().finite().positive(),
  /** Dense FP8 tensor-core peak, where the GPU has one: GEMMs of an fp8 model run at it. */
  fp8PeakTflops: z.number().finite().positive().optional(),
  /** HBM bandwidth: a GEMM too thin to keep the tensor cores busy waits on memory. */
  memoryGBps: z.number().finite().positive().optional(),
  /**
   * Fraction of `memoryGBps` a streaming kernel (norm, activation, residual add) achieves; absent:
   * 1. The memory-bound kernels' bytes are timed at memoryGBps × this.
   */
  memoryFraction: z.number().finite().gt(0).max(1).optional(),
  /** Fraction of the BF16 peak a large, tile-aligned GEMM sustains (measured per GPU). */
  achievableFraction: z.number().finite().gt(0).max(1).optional(),
  /** Fraction of the FP8 peak a large FP8 GEMM sustains; absent: `achievableFraction`. */
  fp8AchievableFraction: z.number().finite().gt(0).max(1).optional(),
  /**
   * Fraction of the BF16 peak causal FlashAttention sustains on long sequences, forward and
   * backward; absent: the attention core runs at `achievableFraction` at every length.
   */
  attentionFraction: z
    .strictObject({
      forward: z.number().finite().gt(0).max(1),
      backward: z.number().finite().gt(0).max(1),
    })
    .optional(),
  memoryGiB: z.number().finite().positive(),
  sms: z.number().int().min(1).optional(),
});

export const presetClusterFieldsSchema = z.strictObject({
  kind: z.literal('preset').optional(),
  /** dgx-a100, dgx-h100 or dgx-h200 (clusterPresets.ts). */
  preset: z.string(),
  nodes: z.number().int().min(1),
  /** Overrides the preset GPU's sustained fraction of peak. */
  achievableFraction: z.number().finite().gt(0).max(1).optional(),
  dispatchMs,
});

export const presetClusterSchema = presetClusterFieldsSchema.superRefine(checkClusterPreset);

export const customClusterSchema = z.strictObject({
  kind: z.literal('custom'),
  nodes: z.number().int().min(1),
  gpusPerNode: z.number().int().min(1),
  gpu: gpuSchema,
  intraNode: linkSchema,
  interNode: linkSchema,
  dispatchMs,
});

export type IdealCluster = z.infer<typeof idealClusterSchema>;
export type PresetCluster = z.infer<typeof presetClusterFieldsSchema>;
export type CustomCluster = z.infer<typeof customClusterSchema>;
export type Cluster = IdealCluster | PresetCluster | CustomCluster;
