import { describe, expect, it } from 'vitest';
import { CLUSTER_PRESETS, expandCluster, HBM_STREAM_FRACTION } from './clusterPresets.ts';
import { parseDesign } from './design.ts';
import { resolveTransformer } from './transformerPresets.ts';

const design = (model: unknown, cluster: unknown = { preset: 'dgx-h100', nodes: 1 }) =>
  parseDesign({ format: 'stagecraft/design@1', name: 'd', model, cluster, directives: [] });

describe('transformer presets', () => {
  it('a preset with overrides of any field', () => {
    const r = resolveTransformer({
      kind: 'transformer',
      preset: 'qwen3-30b-a3b',
      seqLen: 8192,
      moe: { topK: 4 },
    });
    expect(r.ok && r.config).toMatchObject({
      preset: 'qwen3-30b-a3b',
      hidden: 2048,
      headDim: 128,
      seqLen: 8192,
      microbatchSize: 1,
      dtype: 'bf16',
      moe: { experts: 128, topK: 4, expertFfnHidden: 768, sharedExperts: 0, denseLayers: 0 },
    });
  });

  it('Piper\'s Qwen3 "1B" and "9B" are its artifact\'s Megatron configurations at sequence 512', () => {
    const one = resolveTransformer({ kind: 'transformer', preset: 'qwen3-1b' });
    expect(one.ok && one.config).toMatchObject({
      layers: 16,
      hidden: 1024,
      heads: 16,
      kvHeads: 8,
      headDim: 64,
      vocab: 151936,
      seqLen: 512,
      moe: { experts: 4, topK: 2, expertFfnHidden: 3584, denseLayers: 0 },
    });
    const nine = resolveTransformer({ kind: 'transformer', preset: 'qwen3-9b' });
    expect(nine.ok && nine.config).toMatchObject({
      layers: 24,
      hidden: 2048,
      heads: 32,
      kvHeads: 8,
      headDim: 64,
      seqLen: 512,
      moe: { experts: 8, topK: 2, expertFfnHidden: 7168, denseLayers: 0 },
    });
  });

  it('an unknown preset is an error at model.preset listing the known ones', () => {
    expect(design({ kind: 'transformer', preset: 'llama9' })).toEqual({
      ok: false,
      errors: [
        {
          path: 'model.preset',
          message:
            'unknown model preset "llama9" (known: llama3-8b, llama3-70b, llama3.1-405b, qwen3-8b, qwen3-30b-a3b, qwen3-1b, qwen3-9b, mixtral-8x7b, deepseek-v3, gpt-oss-120b)',
        },
      ],
    });
  });

  it('without a preset the core hyperparameters are required, each named', () => {
    const r = design({ kind: 'transformer', layers: 2, hidden: 64 });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual([
      'model.ffnHidden',
      'model.heads',
      'model.vocab',
      'model.seqLen',
    ]);
  });

  it('inconsistent fields are errors at the field', () => {
    const r = design({ kind: 'transformer', preset: 'llama3-8b', kvHeads: 5, moe: { experts: 4, topK: 8 } });
    expect(r.ok ? [] : r.errors).toEqual([
      { path: 'model.kvHeads', message: 'must divide heads (32); got 5' },
      { path: 'model.moe.expertFfnHidden', message: 'required field missing' },
      { path: 'model.moe.topK', message: 'must be ≤ experts (4); got 8' },
    ]);
  });
});

describe('cluster presets', () => {
  it('dgx-h100 × 2 expands to 16 H100s with NVLink inside a node and InfiniBand between', () => {
    const r = expandCluster({ preset: 'dgx-h100', nodes: 2 });
    expect(r).toEqual({
      ok: true,
      cluster: {
        kind: 'custom',
        nodes: 2,
        gpusPerNode: 8,
        gpu: {
          name: 'H100-SXM5-80GB',
          peakTflops: 989,
          fp8PeakTflops: 1979,
          memoryGBps: 3350,
          memoryFraction: HBM_STREAM_FRACTION,
          achievableFraction: 794.5 / 989,
          fp8AchievableFraction: 1402.6 / 1979,
          attentionFraction: { forward: 0.637, backward: 0.637 * (63 / 73) },
          memoryGiB: 80,
          sms: 132,
        },
        intraNode: { bandwidthGBps: 370, latencyUs: 3 },
        interNode: { bandwidthGBps: 47, latencyUs: 5 },
      },
    });
  });

  it('every preset has the published peak, memory and SM count', () => {
    const gpus = Object.fromEntries(Object.entries(CLUSTER_PRESETS).map(([k, v]) => [k, v.gpu]));
    expect(gpus['dgx-a100']).toMatchObject({ peakTflops: 312, memoryGiB: 80, sms: 108 });
    expect(gpus['dgx-h200']).toMatchObject({ peakTflops: 989, memoryGiB: 140, sms: 132 });
  });

  it('every preset link is the bandwidth NCCL achieves, below the line rate', () => {
    // Line rates per GPU and direction: NVLink 3 300 GB/s, NVLink 4 450 GB/s; HDR 25 GB/s, NDR 50 GB/s.
    const line = { 'dgx-a100': [300, 25], 'dgx-h100': [450, 50], 'dgx-h200': [450, 50] } as const;
    const links = Object.fromEntries(
      Object.entries(CLUSTER_PRESETS).map(([k, v]) => [
        k,
        [v.intraNode.bandwidthGBps, v.interNode.bandwidthGBps],
      ]),
    );
    expect(links).toEqual({ 'dgx-a100': [230, 24], 'dgx-h100': [370, 47], 'dgx-h200': [370, 47] });
    for (const [k, [nv, ib]] of Object.entries(line)) {
      expect(links[k]![0]).toBeLessThan(nv);
      expect(links[k]![1]).toBeLessThan(ib);
    }
  });

  it('the achievable fraction can be overridden on a preset', () => {
    const r = expandCluster({ preset: 'dgx-a100', nodes: 1, achievableFraction: 0.5 });
    expect(r.ok && r.cluster.kind === 'custom' && r.cluster.gpu.achievableFraction).toBe(0.5);
  });

  it('overriding the fraction scales FP8 and attention with it, keeping their measured ratios to BF16', () => {
    const r = expandCluster({ preset: 'dgx-h100', nodes: 1, achievableFraction: 0.4 });
    if (!r.ok || r.cluster.kind !== 'custom') throw new Error('unexpected');
    const g = r.cluster.gpu;
    const scale = 0.4 / (794.5 / 989);
    expect(g.fp8AchievableFraction).toBeCloseTo((1402.6 / 1979) * scale, 12);
    expect(g.attentionFraction!.forward).toBeCloseTo(0.637 * scale, 12);
    // The preset itself is untouched.
    expect(CLUSTER_PRESETS['dgx-h100']!.gpu.achievableFraction).toBeCloseTo(794.5 / 989, 12);
  });

  it('every preset’s large-GEMM fractions are measured ones, FP8 below BF16’s on the same GPU', () => {
    const a100 = CLUSTER_PRESETS['dgx-a100']!.gpu;
    const h100 = CLUSTER_PRESETS['dgx-h100']!.gpu;
    expect(a100.achievableFraction! * 312).toBeCloseTo(271.2, 6);
    expect(h100.achievableFraction! * 989).toBeCloseTo(794.5, 6);
    expect(h100.fp8AchievableFraction! * 1979).toBeCloseTo(1402.6, 6);
    // FP8's measured speed-up over BF16 on H100: 1.77×, not the peaks' 2×.
    expect((h100.fp8AchievableFraction! * 1979) / (h100.achievableFraction! * 989)).toBeCloseTo(1.765, 3);
  });

  it('an unknown preset is an error at cluster.preset listing the known ones', () => {
    expect(
      design(
        { kind: 'synthetic', stages: 1, costs: { F: 1, BI: 1, BW: 1 } },
        { preset: 'dgx-b900', nodes: 1 },
      ),
    ).toEqual({
      ok: false,
      errors: [
        {
          path: 'cluster.preset',
          message: 'unknown cluster preset "dgx-b900" (known: dgx-a100, dgx-h100, dgx-h200)',
        },
      ],
    });
  });
});
