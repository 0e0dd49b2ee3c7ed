/**
 * Cluster presets: one node type each, GPUs from vendor data sheets and links at the bandwidth NCCL
 * achieves on them, not their line rate (sources in docs/cost-model.md, "Models and clusters"). A
 * preset with `nodes` expands into the full custom form, which is what the compiler and the
 * simulator read.
 */
import type * as z from 'zod';
import type { Issue } from '../issue/issue.ts';
import type { CustomCluster, IdealCluster, PresetCluster } from './cluster.ts';

export type ClusterNodePreset = Omit<CustomCluster, 'kind' | 'nodes'>;

/**
 * Fractions of peak a large GEMM sustains, measured per GPU and dtype: the Maximum Achievable
 * Matmul FLOPS of S. Bekman's ml-engineering (compute/accelerator/README.md, a brute-force search
 * of `torch.matmul` shapes, mean of 100 iterations): A100 SXM BF16 271.2 of 312 TFLOP/s; H100 SXM
 * BF16 794.5 of 989 ("H200 is the same"), FP8 1,402.6 of 1,979; H200 SXM FP8 1,453.4 of 1,979.
 */
export const A100_BF16_GEMM_FRACTION = 271.2 / 312;
export const H100_BF16_GEMM_FRACTION = 794.5 / 989;
export const H100_FP8_GEMM_FRACTION = 1402.6 / 1979;
export const H200_FP8_GEMM_FRACTION = 1453.4 / 1979;

/**
 * FlashAttention's fraction of the BF16 peak on long sequences, forward and backward.
 * A100, FlashAttention-2 (Dao, arXiv 2307.08691, §4.1): up to 73% of peak in the forward, 63% in
 * the backward. H100, FlashAttention-3 at head dimension 128: 621 TFLOP/s forward at 16,384 tokens
 * (pytorch/benchmark PR #2391), 0.628 of 989 and 0.637 once the sequence term (ATTENTION_HALF_SEQ in
 * the simulator) is taken out; its backward at FlashAttention-2's backward-to-forward ratio, 63/73
 * (no H100 backward figure by length was found: an assumption).
 */
/**
 * Fraction of the data sheet's HBM bandwidth a streaming kernel achieves: 1.80 of 2.04 TB/s on an
 * A100 80GB SXM, measured with a read kernel and confirmed by Nsight Compute at 88% of peak
 * (NVIDIA developer forum, "Trouble to Reach Peak Bandwidth of A100", 2025, which cites a GTC talk
 * whose best kernel reached about 90%). H100 and H200 are assumed to achieve the same fraction (no
 * measurement of their HBM3/HBM3e by a streaming kernel was found: an assumption).
 */
export const HBM_STREAM_FRACTION = 1.8 / 2.039;

export const A100_ATTENTION_FRACTION = { forward: 0.73, backward: 0.63 };
export const H100_ATTENTION_FRACTION = { forward: 0.637, backward: 0.637 * (63 / 73) };

export const CLUSTER_PRESETS: Readonly<Record<string, ClusterNodePreset>> = {
  // DGX A100 640GB: 8× A100-SXM4-80GB, NVLink 3 (600 GB/s per GPU, both directions), 8× HDR 200 Gb/s.
  // Links as NCCL achieves them: ~230 GB/s bus bandwidth over NVLink (line rate 300; NCCL
  // maintainer, NVIDIA/nccl-tests#149) and 24 GB/s per HDR NIC (96 GB/s measured over 4 HDR NICs,
  // NVIDIA/nccl-tests#119).
  'dgx-a100': {
    gpusPerNode: 8,
    gpu: {
      name: 'A100-SXM4-80GB',
      peakTflops: 312,
      // No FP8 tensor cores on A100: an fp8 model's GEMMs run at the BF16 peak. HBM2e 2,039 GB/s.
      memoryGBps: 2039,
      memoryFraction: HBM_STREAM_FRACTION,
      achievableFraction: A100_BF16_GEMM_FRACTION,
      attentionFraction: A100_ATTENTION_FRACTION,
      memoryGiB: 80,
      sms: 108,
    },
    intraNode: { bandwidthGBps: 230, latencyUs: 3 },
    interNode: { bandwidthGBps: 24, latencyUs: 5 },
  },
  // DGX H100: 8× H100-SXM5-80GB, NVLink 4 (900 GB/s per GPU, both directions), 8× NDR 400 Gb/s.
  // Links as NCCL achieves them: 370 GB/s bus bandwidth over NVLink (line rate 450 less ~20%
  // protocol overhead; NCCL maintainer, NVIDIA/nccl-tests#212) and 46–48 GB/s per NDR NIC
  // (NVIDIA, NVIDIA/nccl-tests#290): 47.
  'dgx-h100': {
    gpusPerNode: 8,
    gpu: {
      name: 'H100-SXM5-80GB',
      peakTflops: 989,
      // H100 SXM data sheet: 1,979 TFLOP/s dense FP8 (3,958 with sparsity), HBM3 3.35 TB/s.
      fp8PeakTflops: 1979,
      memoryGBps: 3350,
      memoryFraction: HBM_STREAM_FRACTION,
      achievableFraction: H100_BF16_GEMM_FRACTION,
      fp8AchievableFraction: H100_FP8_GEMM_FRACTION,
      attentionFraction: H100_ATTENTION_FRACTION,
      memoryGiB: 80,
      sms: 132,
    },
    intraNode: { bandwidthGBps: 370, latencyUs: 3 },
    interNode: { bandwidthGBps: 47, latencyUs: 5 },
  },
  // DGX H200: 8× H200-SXM-141GB (H100's compute, 141 GB HBM3e), NVLink 4, 8× NDR 400 Gb/s: the
  // DGX H100's links, as NCCL achieves them.
  'dgx-h200': {
    gpusPerNode: 8,
    gpu: {
      name: 'H200-SXM-141GB',
      peakTflops: 989,
      // H200 data sheet: H100's 1,979 TFLOP/s dense FP8, HBM3e 4.8 TB/s.
      fp8PeakTflops: 1979,
      memoryGBps: 4800,
      memoryFraction: HBM_STREAM_FRACTION,
      achievableFraction: H100_BF16_GEMM_FRACTION,
      fp8AchievableFraction: H200_FP8_GEMM_FRACTION,
      attentionFraction: H100_ATTENTION_FRACTION,
      memoryGiB: 140,
      sms: 132,
    },
    intraNode: { bandwidthGBps: 370, latencyUs: 3 },
    interNode: { bandwidthGBps: 47, latencyUs: 5 },
  },
};

export const CLUSTER_PRESET_NAMES: readonly string[] = Object.keys(CLUSTER_PRESETS);

export function unknownClusterPreset(name: string): string {
  return `unknown cluster preset ${JSON.stringify(name)} (known: ${CLUSTER_PRESET_NAMES.join(', ')})`;
}

/** A preset cluster as the full custom form; an unknown preset is an issue at `cluster.preset`. */
export function expandPresetCluster(
  cluster: PresetCluster,
): { ok: true; cluster: CustomCluster } | { ok: false; errors: Issue[] } {
  // Own keys only: "constructor" or "toString" name no preset.
  const p = Object.hasOwn(CLUSTER_PRESETS, cluster.preset) ? CLUSTER_PRESETS[cluster.preset] : undefined;
  if (!p)
    return { ok: false, errors: [{ path: 'cluster.preset', message: unknownClusterPreset(cluster.preset) }] };
  const gpu = { ...p.gpu };
  if (p.gpu.attentionFraction) gpu.attentionFraction = { ...p.gpu.attentionFraction };
  // A design's fraction scales all compute alike: FP8 and attention keep their measured ratios to BF16.
  const scale =
    cluster.achievableFraction !== undefined ? cluster.achievableFraction / p.gpu.achievableFraction! : 1;
  if (scale !== 1) {
    gpu.achievableFraction = cluster.achievableFraction;
    if (gpu.fp8AchievableFraction !== undefined)
      gpu.fp8AchievableFraction = Math.min(1, gpu.fp8AchievableFraction * scale);
    if (gpu.attentionFraction)
      gpu.attentionFraction = {
        forward: Math.min(1, gpu.attentionFraction.forward * scale),
        backward: Math.min(1, gpu.attentionFraction.backward * scale),
      };
  }
  return {
    ok: true,
    cluster: {
      kind: 'custom',
      nodes: cluster.nodes,
      gpusPerNode: p.gpusPerNode,
      gpu,
      intraNode: { ...p.intraNode },
      interNode: { ...p.interNode },
      ...(cluster.dispatchMs !== undefined ? { dispatchMs: cluster.dispatchMs } : {}),
    },
  };
}

/** The cluster with presets expanded: ideal or custom, the two forms costs are computed from. */
export function expandCluster(
  cluster: IdealCluster | PresetCluster | CustomCluster,
): { ok: true; cluster: IdealCluster | CustomCluster } | { ok: false; errors: Issue[] } {
  if ('preset' in cluster) return expandPresetCluster(cluster);
  return { ok: true, cluster };
}

/** zod refinement: an unknown preset fails to parse, at `preset`, listing the known ones. */
export function checkClusterPreset(c: PresetCluster, ctx: z.core.$RefinementCtx<PresetCluster>): void {
  if (!Object.hasOwn(CLUSTER_PRESETS, c.preset))
    ctx.addIssue({ code: 'custom', message: unknownClusterPreset(c.preset), path: ['preset'] });
}
