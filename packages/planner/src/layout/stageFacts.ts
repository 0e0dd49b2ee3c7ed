/**
 * What the layout bounds (pipelineBounds.ts) read off the model, per virtual stage at one
 * microbatch size, before any parallelism divides it: the compute (stageCompute), the bytes
 * tensor parallelism all-reduces and expert parallelism exchanges inside the stage, the stash and
 * the parameters. Blocks tensor parallelism splits (tagged TP, as `shard_tensor` over { TP: "*" }
 * selects them) and blocks every member of a tp group runs whole (routers, routed experts) are
 * kept apart: only the first are divided by tp (passes/src/passes/shardTensor.ts, `divided`).
 */
import {
  type BlockInfo,
  type BlockKernels,
  OP_B,
  OP_BI,
  OP_BW,
  OP_F,
  opKernels,
  type TransformerModel,
} from '@stagecraft/ir';
import { lowerModel } from '@stagecraft/passes';
import { type CostCluster, computeMsOf } from '@stagecraft/sim';

/** Per stage, of the blocks on one side of the tp split. */
export interface StageWork {
  activationBytes: number[];
  /** Kept from F to B when the forward is recomputed: the block input. */
  keptBytes: number[];
  /** The largest one block stashes: a RECOMPUTE or RELOAD brings back one block at a time. */
  blockActivationBytes: number[];
  denseParamBytes: number[];
  expertParamBytes: number[];
}

export interface StageFacts {
  /** Blocks tensor parallelism splits over tp, and blocks each tp member runs whole. */
  split: StageWork;
  whole: StageWork;
  /** Bytes tensor parallelism all-reduces between the stage's blocks in its forward and its backward. */
  forwardReduceBytes: number[];
  backwardReduceBytes: number[];
  /** How many all-reduces those are: each pays the ring's latency. */
  forwardReduces: number[];
  backwardReduces: number[];
  /** Output bytes of the stage's last block and input-gradient bytes of its first, when tp-split. */
  sendReduceBytes: number[];
  receiveReduceBytes: number[];
  /**
   * Bytes each member sends in every all-to-all `shard` puts inside the stage (a dispatch into an
   * expert block from the block before it, a combine out of it to the block after, both in the
   * stage): the edge's bytes times the block's top-k (passes/src/passes/shard.ts). The backward
   * mirrors each (combine-grad, dispatch-grad) on the same bytes.
   */
  expertExchangeBytes: number[][];
  /** The lowered blocks and the stage of each, for the compute times at a tp and ep degree. */
  blocks: readonly BlockInfo[];
  stageOfBlock: readonly number[];
}

/** Per stage, ms of one microbatch's F, BI and BW on one member, as the cost model times them. */
export interface StageCompute {
  F: number[];
  BI: number[];
  BW: number[];
}

const zeros = (n: number) => new Array<number>(n).fill(0);
const work = (n: number): StageWork => ({
  activationBytes: zeros(n),
  keptBytes: zeros(n),
  blockActivationBytes: zeros(n),
  denseParamBytes: zeros(n),
  expertParamBytes: zeros(n),
});

export function stageFacts(model: TransformerModel, microbatchSize: number, stageCount: number): StageFacts {
  const { cuts: _cuts, layout: _layout, ...annotate } = model.annotate ?? {};
  const blocks = lowerModel({
    ...model,
    microbatchSize,
    annotate: { ...annotate, PP: stageCount },
  } as TransformerModel);
  const values: number[] = [];
  for (const b of blocks) {
    const v = b.tags.PP;
    if (v !== undefined && !values.includes(v)) values.push(v);
  }
  const n = values.length;
  const facts: StageFacts = {
    split: work(n),
    whole: work(n),
    forwardReduceBytes: zeros(n),
    backwardReduceBytes: zeros(n),
    forwardReduces: zeros(n),
    backwardReduces: zeros(n),
    sendReduceBytes: zeros(n),
    receiveReduceBytes: zeros(n),
    expertExchangeBytes: Array.from({ length: n }, () => []),
    blocks,
    stageOfBlock: [],
  };
  const stageOf = (b: BlockInfo) => values.indexOf(b.tags.PP ?? values[0]!);
  blocks.forEach((b, i) => {
    const s = stageOf(b);
    (facts.stageOfBlock as number[]).push(s);
    const next = blocks[i + 1];
    const split = b.tags.TP !== undefined;
    const nextStage = next ? stageOf(next) : -1;
    // Forward: b's output, all-reduced when b is split; backward: the next block's input gradient.
    if (next && nextStage === s) {
      if (split) {
        facts.forwardReduceBytes[s]! += b.outputBytes;
        facts.forwardReduces[s]!++;
      }
      if (next.tags.TP !== undefined) {
        facts.backwardReduceBytes[s]! += b.outputBytes;
        facts.backwardReduces[s]!++;
      }
      // An edge between an expert block and a block outside the experts: dispatch or combine.
      if ((b.tags.EP !== undefined) !== (next.tags.EP !== undefined)) {
        const inside = b.tags.EP !== undefined ? b : next;
        facts.expertExchangeBytes[s]!.push(b.outputBytes * (inside.topK ?? 1));
      }
    } else if (next) {
      if (split) facts.sendReduceBytes[s] = b.outputBytes;
      if (next.tags.TP !== undefined) facts.receiveReduceBytes[nextStage] = b.outputBytes;
    }
    const w = split ? facts.split : facts.whole;
    w.activationBytes[s]! += b.activationBytes;
    w.blockActivationBytes[s] = Math.max(w.blockActivationBytes[s]!, b.activationBytes);
    w.keptBytes[s]! += Math.min(b.activationBytes, b.recomputeActivationBytes ?? 0);
    if (b.tags.EP !== undefined) w.expertParamBytes[s]! += b.paramBytes;
    else w.denseParamBytes[s]! += b.paramBytes;
  });
  return facts;
}

/**
 * Each stage's compute as the simulator times it (sim/src/costModel.ts, computeMsOf: a block's own
 * ms, else its kernels' roofline, else its FLOPs at the sustained rate) for its blocks as one
 * member holds them: a TP-tagged block's FLOPs and GEMMs divided over tp as `shard_tensor` divides
 * them (passes/src/passes/shardTensor.ts, `divided`), a routed expert block's GEMMs on ep× the
 * tokens for 1/ep of the experts (passes/src/passes/shard.ts, `localExperts`). A BI is counted at
 * most its fused B less its BW, so BI + BW never exceeds the fused B a builder may run instead.
 */
export function stageCompute(
  facts: StageFacts,
  tp: number,
  ep: number,
  cost: CostCluster & { kind: 'custom' },
): StageCompute {
  const n = facts.split.activationBytes.length;
  const out: StageCompute = { F: zeros(n), BI: zeros(n), BW: zeros(n) };
  facts.blocks.forEach((b, i) => {
    const s = facts.stageOfBlock[i]!;
    const d = b.tags.TP !== undefined ? tp : 1;
    const kernels = memberKernels(b.kernels, d, b.tags.EP !== undefined && b.experts !== undefined ? ep : 1);
    const time = (code: number, ms: number | undefined, flops: number | undefined) => {
      const t = computeMsOf(
        ms === undefined ? undefined : ms / d,
        flops === undefined ? undefined : flops / d,
        cost,
        kernels && opKernels(kernels, code),
      );
      return typeof t === 'number' ? t : 0;
    };
    const f = b.flops;
    const F = time(OP_F, b.ms?.F, f?.F);
    const BI = time(OP_BI, b.ms?.BI, f?.BI);
    const BW = time(OP_BW, b.ms?.BW, f?.BW);
    const B = time(OP_B, b.ms === undefined ? undefined : b.ms.BI + b.ms.BW, f && f.BI + f.BW);
    out.F[s]! += F;
    out.BI[s]! += Math.max(0, Math.min(BI, B - BW));
    out.BW[s]! += BW;
  });
  return out;
}

function memberKernels(k: BlockKernels | undefined, tp: number, ep: number): BlockKernels | undefined {
  if (!k || (tp === 1 && ep === 1)) return k;
  const out: BlockKernels = {
    ...k,
    gemms: k.gemms.map((g) => {
      const split = tp === 1 ? g : g.split === 'n' ? { ...g, n: g.n / tp } : { ...g, k: g.k / tp };
      return ep === 1 ? split : { ...split, m: split.m * ep, count: (split.count ?? 1) / ep };
    }),
  };
  // shard_tensor divides both classes of elementwise bytes over tp unless `sequence_parallel` is
  // false (passes/src/passes/shardTensor.ts, `divided`), which a layout never sets.
  const w = k.elementwiseBytes;
  if (w !== undefined && tp > 1) {
    const over = (p: typeof w.split) => ({ F: p.F / tp, BI: p.BI / tp, BW: p.BW / tp });
    out.elementwiseBytes = { sequence: over(w.sequence), split: over(w.split) };
  }
  return out;
}
