import {
  DESIGN_FORMAT,
  type Design,
  HBM_STREAM_FRACTION,
  type Model,
  parseDesign,
  planOpCount,
} from '@stagecraft/ir';
import { compile, modelFlopsPerStep } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../test/repoFiles.ts';
import { computeMs, KERNEL_LAUNCH_MS, resolveCluster } from './costModel.ts';
import { simulate } from './simulate.ts';
import { exposedCommPerDeviceMs } from './stepMetrics.ts';

const H100_PEAK = 989e12;
/** Bytes per ms a streaming kernel moves on an H100: its data sheet's 3.35 TB/s at the achieved fraction. */
const H100_STREAM_BYTES_PER_MS = 3350e6 * HBM_STREAM_FRACTION;

/** Milliseconds device `d` spends in memory-bound kernels: their bytes at the achieved HBM rate. */
function elementwiseMs(plan: ReturnType<typeof run>['plan'], d: number): number {
  let bytes = 0;
  for (const s of plan.devices[d]!.streams)
    for (const i of s.instructions) if ('kernels' in i && i.kernels) bytes += i.kernels.elementwiseBytes ?? 0;
  return bytes / H100_STREAM_BYTES_PER_MS;
}

function llama8b(
  microbatches: number,
  annotate: Extract<Model, { kind: 'transformer' }>['annotate'] = { PP: 4 },
): Design {
  return {
    format: DESIGN_FORMAT,
    name: 'Llama-3-8B PP4 1F1B',
    model: { kind: 'transformer', preset: 'llama3-8b', annotate },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [{ op: 'schedule', builder: '1f1b', ranks: 4, microbatches }],
  };
}

function run(design: Design) {
  const c = compile(design, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return { plan: c.plan, sim: s.sim };
}

describe('a transformer design compiles and simulates end to end', () => {
  it('Llama-3-8B PP4 1F1B on a DGX H100: its GEMMs run near the measured large-GEMM rate, attention slower', () => {
    const { plan, sim } = run(llama8b(8));
    expect(plan.tokensPerStep).toBe(8 * 8192);
    const f = plan.devices[1]!.streams[0]!.instructions.find((i) => i.op === 'F');
    expect(f && 'flops' in f && f.flops).toBeGreaterThan(0);
    expect(f && 'ms' in f ? f.ms : undefined).toBeUndefined();
    // A device's busy time: its GEMM FLOPs at the measured large-GEMM rate and its attention
    // FLOPs at FlashAttention's (at 8K tokens: 0.637 forward, 0.55 backward × 0.947 of the BF16
    // peak), plus what tile and wave quantization and kernel launches add: little for
    // Llama-3-8B's 8K-token, 4K-wide GEMMs; and the norms', SwiGLU's, RoPE's, residual adds' and
    // loss's HBM bytes at the achieved bandwidth.
    let gemmFlops = 0;
    let attention = 0;
    for (const s of plan.devices[1]!.streams)
      for (const i of s.instructions) {
        if (!('flops' in i) || i.flops === undefined || !('kernels' in i) || !i.kernels) continue;
        let g = 0;
        for (const k of i.kernels.gemms) g += 2 * k.m * k.n * k.k * (k.count ?? 1);
        gemmFlops += g;
        const fraction = i.kernels.attention?.pass === 'forward' ? 0.637 : 0.637 * (63 / 73);
        attention += (i.flops - g) / (H100_PEAK * fraction * (4096 / (4096 + 228)));
      }
    const atMeasuredRates =
      (gemmFlops / (H100_PEAK * (794.5 / 989)) + attention) * 1e3 + elementwiseMs(plan, 1);
    expect(sim.devices[1]!.busyMs).toBeGreaterThan(atMeasuredRates);
    expect(sim.devices[1]!.busyMs).toBeLessThan(atMeasuredRates * 1.04);
    expect(sim.tokensPerSecond).toBeCloseTo((8 * 8192) / (sim.makespanMs / 1e3), 6);
    // Four GPUs of the node run the pipeline; the other four hold nothing.
    expect(plan.devices.filter((d) => d.group >= 0)).toHaveLength(4);
    expect(planOpCount(plan)).toBeGreaterThan(1000);
  });

  it('model FLOPs of a step are 3 passes × microbatches × per-microbatch work, ≈ 6·N·tokens plus attention', () => {
    const { plan } = run(llama8b(8));
    const tokens = 8 * 8192;
    const n = 8.03e9;
    const perToken = modelFlopsPerStep(plan) / tokens;
    // 6N of the non-embedding parameters, and causal attention on 8K tokens adds ≈ 13%.
    expect(perToken / (6 * (n - 128256 * 4096))).toBeGreaterThan(1.1);
    expect(perToken / (6 * (n - 128256 * 4096))).toBeLessThan(1.2);
  });

  it('MFU of dense Llama-3-8B PP4 1F1B on H100 rises with microbatches and stays under the large-GEMM fraction', () => {
    let last = 0;
    for (const m of [8, 16, 32]) {
      const { plan, sim } = run(llama8b(m));
      const used = plan.devices.filter((d) => d.group >= 0).length;
      const mfu = modelFlopsPerStep(plan) / ((sim.makespanMs / 1e3) * used * H100_PEAK);
      expect(mfu).toBeGreaterThan(last);
      // The bubble of p = 4: at most m/(m + 3) of the busiest stage's rate.
      expect(mfu).toBeLessThan((794.5 / 989) * (m / (m + 3)));
      last = mfu;
    }
  });

  it('an uneven explicit layout slows the step against the balanced one', () => {
    const balanced = run(llama8b(8)).sim.makespanMs;
    const uneven = run(llama8b(8, { layout: 'Et*8|t*8|t*8|t*8,L' })).sim.makespanMs;
    expect(uneven).toBeGreaterThan(balanced);
  });

  it('a MoE preset (Mixtral-8x7B) compiles with EP-tagged experts and simulates', () => {
    const design: Design = {
      ...llama8b(4),
      model: { kind: 'transformer', preset: 'mixtral-8x7b', seqLen: 4096, annotate: { PP: 4 } },
    };
    const { plan, sim } = run(design);
    const ep = plan.devices[0]!.streams[0]!.instructions.filter((i) => i.tags.EP === 0);
    expect(ep.length).toBeGreaterThan(0);
    expect(sim.makespanMs).toBeGreaterThan(0);
  });

  it('bad annotations are compile errors at the path', () => {
    const c = compile(llama8b(8, { layout: 'Et*8|t*8|t*8|t*7,L' }));
    expect(c.ok ? [] : c.errors).toEqual([
      {
        path: 'model.annotate.layout',
        message: 'the layout places 31 layers (t) but the model has 32: it drops layer 31',
      },
    ]);
  });
});

describe('a transformer design needs a GPU', () => {
  it('on the ideal cluster it is one error at cluster.kind', () => {
    const c = compile({ ...llama8b(4), cluster: { kind: 'ideal', devices: 4 } });
    expect(c.ok ? [] : c.errors.map((e) => e.path)).toEqual(['cluster.kind']);
  });
});

describe('DeepSeek-V3 at its published layout', () => {
  it('PP16 × VPP2 "Et*3|(tt|)*29,m|L" with interleaved 1F1B compiles and simulates on 16 H100s', () => {
    const { plan, sim } = run({
      format: DESIGN_FORMAT,
      name: 'DeepSeek-V3 PP16 VPP2',
      model: { kind: 'transformer', preset: 'deepseek-v3', annotate: { layout: 'Et*3|(tt|)*29,m|L' } },
      cluster: { preset: 'dgx-h100', nodes: 2 },
      directives: [{ op: 'schedule', builder: 'interleaved-1f1b', ranks: 16, chunks: 2, microbatches: 32 }],
    });
    expect(plan.devices[0]!.stages).toEqual([0, 16]);
    expect(plan.devices[15]!.stages).toEqual([15, 31]);
    expect(plan.tokensPerStep).toBe(32 * 4096);
    // Routed experts of 58 MoE layers (and the MTP module's) carry EP.
    const ep = new Set<number>();
    for (const d of plan.devices)
      for (const s of d.streams)
        for (const i of s.instructions) if (i.tags.EP === 0) ep.add(i.tags.LAYER as number);
    expect(ep.size).toBe(59);
    expect(sim.makespanMs).toBeGreaterThan(0);
  });
});

describe('the bubble of a design that leaves GPUs of its cluster unused', () => {
  it('PP4 on an 8-GPU node counts the 4 pipeline GPUs only, as the 1F1B bubble does', () => {
    const { plan, sim } = run(llama8b(16));
    const inPipeline = plan.devices.filter((d) => d.group >= 0).map((d) => d.device);
    expect(inPipeline).toEqual([0, 1, 2, 3]);
    const used = sim.devices.filter((d) => inPipeline.includes(d.device));
    const idle = used.reduce((a, d) => a + d.idleMs, 0);
    const busy = used.reduce((a, d) => a + d.busyMs, 0);
    expect(sim.bubbleRatio).toBeCloseTo(idle / (4 * sim.makespanMs), 12);
    expect(sim.bubbleOverIdeal).toBeCloseTo(idle / busy, 12);
    // Near 1F1B's (p − 1) / (m + p − 1) = 3 / 19, not the half of the node that never runs.
    expect(sim.bubbleRatio).toBeLessThan(0.25);
  });
});

describe('exposed communication per GPU', () => {
  it('is the sum over devices divided by the GPUs that run the design', () => {
    const { sim } = run(llama8b(16));
    const used = sim.devices.filter((d) => d.busyMs > 0);
    expect(used).toHaveLength(4);
    const sum = used.reduce((a, d) => a + (d.exposedCommMs ?? 0), 0);
    expect(sim.exposedCommMs).toBeCloseTo(sum, 9);
    expect(exposedCommPerDeviceMs(sim)).toBeCloseTo(sum / 4, 9);
    expect(exposedCommPerDeviceMs(sim)).toBeLessThan(sim.makespanMs);
  });
});

describe('compute by GEMM shape, end to end', () => {
  it('Qwen3-30B-A3B with EP16 over two DGX H100 nodes is paced by its all-to-all, not its GEMMs', async () => {
    const example = (await exampleDesigns()).find((e) => e.file === 'qwen3-30b-a3b-dp16-ep16.json');
    if (!example) throw new Error('example missing');
    const { sim } = run(example.design);
    // 128 experts see 256 tokens each per GPU: their dispatch and combine cross the nodes' NICs and
    // are most of what the GPUs wait for.
    const a2a = sim.exposedCommByKindMs?.ALL_TO_ALL ?? 0;
    expect(a2a / sim.exposedCommMs).toBeGreaterThan(0.9);
    expect(sim.exposedCommMs / 16 / sim.makespanMs).toBeGreaterThan(0.3);
  });

  it('an fp8 model runs its GEMMs at the measured FP8 rate and pays their casts: well under the bf16 time, above 1/1.77 of it', () => {
    const busy = (dtype: 'bf16' | 'fp8') =>
      run({
        ...llama8b(4),
        model: { kind: 'transformer', preset: 'llama3-8b', dtype, annotate: { PP: 4 } },
      }).sim.devices[1]!.busyMs;
    const ratio = busy('fp8') / busy('bf16');
    // FP8 GEMMs at 1.77× BF16's rate; attention's core, the casts and the launches stay.
    expect(ratio).toBeGreaterThan(794.5 / 1402.6);
    expect(ratio).toBeLessThan(0.75);
  });

  it('gemmDtype fp8 runs the GEMMs in FP8 and keeps the model’s bytes (DeepSeek-V3’s mixed precision)', () => {
    const model = (extra: object): Design => ({
      ...llama8b(4),
      model: { kind: 'transformer', preset: 'llama3-8b', annotate: { PP: 4 }, ...extra },
    });
    const mixed = run(model({ gemmDtype: 'fp8' }));
    const fp8 = run(model({ dtype: 'fp8' }));
    const bf16 = run(model({}));
    // The GEMMs take the same time; the elementwise kernels move BF16 activations, twice FP8's bytes.
    const mixedElementwise = elementwiseMs(mixed.plan, 1);
    expect(mixedElementwise).toBeCloseTo(2 * elementwiseMs(fp8.plan, 1), 9);
    expect(mixed.sim.devices[1]!.busyMs - mixedElementwise).toBeCloseTo(
      fp8.sim.devices[1]!.busyMs - elementwiseMs(fp8.plan, 1),
      9,
    );
    expect(mixed.plan.devices[1]!.paramBytes).toBe(bf16.plan.devices[1]!.paramBytes);
  });

  it('every op pays its kernel launches: the embedding’s lookup, no FLOPs, takes 4 µs and its bytes', () => {
    const { plan } = run(llama8b(4));
    const r = resolveCluster(plan.cluster);
    if (!r.ok) throw new Error('cluster');
    const lookup = plan.devices[0]!.streams[0]!.instructions.find(
      (i) => i.op === 'F' && i.id.startsWith('F.b0.'),
    );
    if (lookup?.op !== 'F') throw new Error('no embedding forward');
    expect(lookup.flops).toBe(0);
    // It reads a 4,096-wide BF16 row per token and writes it: 2 × 8,192 × 4,096 × 2 bytes.
    expect(lookup.kernels?.elementwiseBytes).toBe(2 * 8192 * 4096 * 2);
    expect(computeMs(lookup, r.cost)).toBeCloseTo(
      KERNEL_LAUNCH_MS + (2 * 8192 * 4096 * 2) / H100_STREAM_BYTES_PER_MS,
      12,
    );
  });

  it('a custom GPU’s FP8 peak and HBM bandwidth are optional, and a bad one is an error at its field', () => {
    const custom = (gpu: object): Design => ({
      ...llama8b(4),
      cluster: {
        kind: 'custom',
        nodes: 1,
        gpusPerNode: 4,
        gpu: { peakTflops: 989, memoryGiB: 80, ...gpu },
        intraNode: { bandwidthGBps: 450, latencyUs: 3 },
        interNode: { bandwidthGBps: 50, latencyUs: 5 },
      },
    });
    expect(parseDesign(custom({})).ok).toBe(true);
    expect(parseDesign(custom({ fp8PeakTflops: 1979, memoryGBps: 3350 })).ok).toBe(true);
    const bad = parseDesign(custom({ fp8PeakTflops: -1 }));
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(['cluster.gpu.fp8PeakTflops']);
    for (const memoryFraction of [0, 1.2]) {
      const r = parseDesign(custom({ memoryGBps: 3350, memoryFraction }));
      expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(['cluster.gpu.memoryFraction']);
    }
  });
});
