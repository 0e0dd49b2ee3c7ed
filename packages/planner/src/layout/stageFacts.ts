/**
 * What the layout bounds (pipelineBounds.ts) read off the model, per virtual stage at one
 * microbatch size, before any parallelism divides it: the compute at the GPU's peak, the bytes
 * tensor parallelism all-reduces and expert parallelism exchanges inside the stage, the stash and
 * the parameters. Blocks tensor parallelism splits (tagged TP, as `shard_tensor` over { TP: "*" }
 * selects them) and blocks every member of a tp group runs whole (routers, routed experts) are
 * kept apart: only the first are divided by tp (passes/src/passes/shardTensor.ts, `divided`).
 */
import type { BlockInfo, TransformerModel } from '@stagecraft/ir';
import { lowerModel } from '@stagecraft/passes';
import type { GemmGpu } from '@stagecraft/sim';

/** Per stage, of the blocks on one side of the tp split. */
export interface StageWork {
  /** ms of F, BI and BW of one microbatch at the dtype's achievable peak. */
  F: number[];
  BI: number[];
  BW: number[];
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
}

export type PeakRate = Pick<GemmGpu, 'peakFlopsPerMs' | 'fp8PeakFlopsPerMs' | 'achievableFraction'>;

const zeros = (n: number) => new Array<number>(n).fill(0);
const work = (n: number): StageWork => ({
  F: zeros(n),
  BI: zeros(n),
  BW: zeros(n),
  activationBytes: zeros(n),
  keptBytes: zeros(n),
  blockActivationBytes: zeros(n),
  denseParamBytes: zeros(n),
  expertParamBytes: zeros(n),
});

export function stageFacts(
  model: TransformerModel,
  gpu: PeakRate,
  microbatchSize: number,
  stageCount: number,
): StageFacts {
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
  };
  const stageOf = (b: BlockInfo) => values.indexOf(b.tags.PP ?? values[0]!);
  blocks.forEach((b, i) => {
    const s = stageOf(b);
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
    const rate = rateOf(gpu, b);
    if (b.flops) {
      w.F[s]! += b.flops.F / rate;
      w.BI[s]! += b.flops.BI / rate;
      w.BW[s]! += b.flops.BW / rate;
    }
    w.activationBytes[s]! += b.activationBytes;
    w.blockActivationBytes[s] = Math.max(w.blockActivationBytes[s]!, b.activationBytes);
    w.keptBytes[s]! += Math.min(b.activationBytes, b.recomputeActivationBytes ?? 0);
    if (b.tags.EP !== undefined) w.expertParamBytes[s]! += b.paramBytes;
    else w.denseParamBytes[s]! += b.paramBytes;
  });
  return facts;
}

function rateOf(gpu: PeakRate, b: BlockInfo): number {
  const peak =
    b.kernels?.dtype === 'fp8' ? Math.max(gpu.fp8PeakFlopsPerMs, gpu.peakFlopsPerMs) : gpu.peakFlopsPerMs;
  return peak * gpu.achievableFraction;
}
