import { type Design, resolveTransformer, type TransformerModel } from '@stagecraft/ir';
import { allToAllMs, type CostCluster, collectiveSpanMs, resolveCluster } from '@stagecraft/sim';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchLayouts } from '../index.ts';
import { LayoutEvaluator } from '../layoutEvaluation.ts';
import type { LayoutPoint } from '../request.ts';
import { layoutDesign } from './layoutDesign.ts';
import { layoutSpace } from './layoutSpace.ts';
import { ParetoFront } from './paretoFront.ts';
import { PipelineBounds } from './pipelineBounds.ts';
import { stageCompute, stageFacts } from './stageFacts.ts';

/**
 * A small MoE transformer on one node of 8 GPUs, its experts behind a dense layer: every axis of
 * the space (tp, pp with chunks, dp, ep, builders with overlapped slots, ZeRO, recompute, offload)
 * is exercised, and the whole space simulates in well under a minute.
 */
const moe: Design = {
  format: 'stagecraft/design@3',
  name: 'moe',
  model: {
    kind: 'transformer',
    layers: 4,
    hidden: 512,
    ffnHidden: 1024,
    heads: 8,
    kvHeads: 4,
    vocab: 8192,
    seqLen: 1024,
    microbatchSize: 1,
    moe: { experts: 4, topK: 2, expertFfnHidden: 512, sharedExperts: 0, denseLayers: 1 },
  },
  cluster: { preset: 'dgx-h100', nodes: 1 },
  directives: [],
} as Design;
const GLOBAL_BATCH = 8;

interface Simulated {
  name: string;
  stepMs: number;
  peakMemoryBytes: number;
  bound: { stepMs: number; memoryBytes: number };
}

/** Every layout of the space that is not structurally pruned, compiled and simulated. */
function bruteForce(): Simulated[] {
  const model = moe.model as TransformerModel;
  const resolved = resolveTransformer(model, []);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.errors));
  const cost = resolveCluster(moe.cluster);
  if (!cost.ok) throw new Error(JSON.stringify(cost.errors));
  const bounds = new PipelineBounds(model, cost.cost as CostCluster & { kind: 'custom' });
  const evaluator = new LayoutEvaluator();
  const out: Simulated[] = [];
  const c = resolved.config;
  for (const entry of layoutSpace({
    devices: 8,
    gpusPerNode: 8,
    layers: c.layers,
    heads: c.heads,
    kvHeads: c.kvHeads,
    experts: c.moe!.experts,
    globalBatch: GLOBAL_BATCH,
    microbatchSizes: [1, 2],
  })) {
    if (entry.pruned) continue;
    const d = layoutDesign(moe, entry.layout);
    if (typeof d === 'string') continue;
    const e = evaluator.evaluate(d);
    if (!e.ok || e.oom) continue;
    out.push({
      name: d.name,
      stepMs: e.stepMs,
      peakMemoryBytes: e.peakMemoryBytes,
      bound: bounds.of(entry.layout),
    });
  }
  return out;
}

describe('the step bound of an expert-parallel layout', () => {
  it('counts the dispatch and combine all-to-alls inside a stage, in the forward and the backward', () => {
    const cost = resolveCluster(moe.cluster);
    if (!cost.ok) throw new Error(JSON.stringify(cost.errors));
    const custom = cost.cost as CostCluster & { kind: 'custom' };
    const bounds = new PipelineBounds(moe.model as TransformerModel, custom);
    const layout = {
      pp: 1,
      vp: 1,
      dp: 8,
      tp: 1,
      zero: 0,
      builder: '1f1b',
      // Enough microbatches that the pipeline, not the one gradient all-reduce, sets the bound.
      microbatches: 8,
      microbatchSize: 1,
      recompute: false,
      offload: false,
    } as const;
    const sharded = bounds.of({ ...layout, ep: 4 }).stepMs;
    // One rank runs each microbatch's F, BI and BW in turn: the compute, then the all-to-alls.
    const compute = stageCompute(stageFacts(moe.model as TransformerModel, 1, 1), 1, 4, custom);
    const work = compute.F[0]! + compute.BI[0]! + compute.BW[0]!;
    // Three MoE layers, each a dispatch of the router's output and a combine of the experts' (1 MiB
    // each at 1,024 tokens × 512 in bf16) times the top-k 2, over 4 GPUs of one node; twice per layer
    // pass, for each of the 8 microbatches.
    const exchanges = 8 * 3 * 2 * 2 * allToAllMs(4, 2 * 2 ** 20, custom.intraNode);
    expect(sharded).toBeCloseTo(8 * work + exchanges, 6);
  });

  it('counts them beside tensor parallelism too, after the all-reduces of the split blocks', () => {
    const cost = resolveCluster(moe.cluster);
    if (!cost.ok) throw new Error(JSON.stringify(cost.errors));
    const custom = cost.cost as CostCluster & { kind: 'custom' };
    const model = moe.model as TransformerModel;
    const bounds = new PipelineBounds(model, custom);
    const layout = {
      pp: 1,
      vp: 1,
      dp: 2,
      tp: 4,
      ep: 2,
      zero: 0,
      builder: '1f1b',
      microbatches: 8,
      microbatchSize: 1,
      recompute: false,
      offload: false,
    } as const;
    const facts = stageFacts(model, 1, 1);
    const compute = stageCompute(facts, 4, 2, custom);
    const link = custom.intraNode;
    // Each pass's all-reduces over tp: the bytes once, the latency for every one of them (on this
    // preset, NCCL's choice of algorithm and protocol, as the simulator times them).
    const tp4 = { n: 4, nodes: 1, perNode: 4 };
    const allReduce = (bytes: number) => collectiveSpanMs(custom, 'ALL_REDUCE', tp4, bytes);
    const reduces = (bytes: number, count: number) => allReduce(bytes) + (count - 1) * allReduce(0);
    const perMicrobatch =
      compute.F[0]! +
      compute.BI[0]! +
      compute.BW[0]! +
      reduces(facts.forwardReduceBytes[0]!, facts.forwardReduces[0]!) +
      reduces(facts.backwardReduceBytes[0]!, facts.backwardReduces[0]!) +
      // Three MoE layers: dispatch and combine, forward and backward, over 2 GPUs of one node.
      3 * 2 * 2 * allToAllMs(2, 2 * 2 ** 20, link);
    expect(bounds.of(layout).stepMs).toBeCloseTo(8 * perMicrobatch, 6);
  });
});

describe('the layout bounds', () => {
  let all: Simulated[] = [];
  beforeAll(() => {
    all = bruteForce();
  }, 600_000);

  it('never exceed the simulated step or peak memory of any layout of the space', () => {
    expect(all.length).toBeGreaterThan(100);
    // Tensor and expert parallel at once: their all-to-alls are in the bound as well.
    expect(all.filter((s) => /TP[248] .*EP[24]/.test(s.name)).length).toBeGreaterThan(20);
    const over = all.filter((s) => s.bound.stepMs > s.stepMs || s.bound.memoryBytes > s.peakMemoryBytes);
    expect(over.map((s) => s.name)).toEqual([]);
  });

  it('hold a split backward’s stash to its BW: recomputed ZB-H1 and ZB-V layouts bounded within 15% of their peak', () => {
    const split = all.filter((s) => /(zb-h1|zbv),.*recompute/.test(s.name));
    expect(split.length).toBeGreaterThan(20);
    const loose = split.filter((s) => s.bound.memoryBytes < 0.85 * s.peakMemoryBytes);
    expect(loose.map((s) => s.name)).toEqual([]);
  });

  it('prune only dominated layouts: the search answers the front brute force finds', async () => {
    const front = new ParetoFront<Pick<LayoutPoint, 'stepMs' | 'peakMemoryBytes'> & { name: string }>();
    for (const s of all) front.offer(s);
    const r = await searchLayouts(
      { design: moe, globalBatch: GLOBAL_BATCH, budgetMs: 600_000 },
      { workers: 0 },
    );
    expect(r.stoppedEarly).toBe(false);
    expect(r.tried).toBeLessThan(all.length);
    const figures = (ps: { stepMs: number; peakMemoryBytes: number }[]) =>
      ps.map((p) => [p.stepMs, p.peakMemoryBytes]);
    expect(figures(r.front)).toEqual(figures(front.list()));
  }, 600_000);
});
