/**
 * Sound lower bounds of a layout's simulated step and peak memory, known before it is compiled:
 * the builder's own per-rank order timed as a list schedule on costs no op can beat, and the
 * stash that order must hold on top of the state every device keeps. The layout search skips a
 * layout whose bounds a point of its front already reaches on both axes (that layout can only be
 * dominated), so the front it answers with is the true front of the layouts it covered.
 *
 * Why each piece is a lower bound of what the simulator computes:
 * - A compute op takes at least its FLOPs at the GPU's achievable peak for its dtype (the cost
 *   model's GEMM roofline divides by peak × achievable fraction × a shape efficiency ≤ 1, adds
 *   HBM and launch time; the rest of an op's FLOPs runs at the BF16 rate: sim/src/costModel.ts).
 *   Tensor parallelism divides at most a block's FLOPs and activations by tp.
 * - The simulator runs each rank's compute in the builder's order, an op starting no earlier than
 *   its inputs exist and the previous op of its stream has ended (design: streams are in order);
 *   p2p, collectives and host transfers only delay. Within a stage, the next block's forward waits
 *   for the all-reduce tensor parallelism puts on the previous block's output (and a backward on
 *   the next block's input gradient: passes/src/passes/shardTensor.ts), which takes at least the
 *   ring all-reduce of those bytes on NVLink (a tp group is one node); at a stage's edge the
 *   all-reduce delays the send.
 * - An offloaded stash crosses the host link twice (OFFLOAD after F, RELOAD before B), one copy
 *   after the other on the device's offload stream, each at least the host link's latency plus
 *   its bytes at its bandwidth (sim/src/costModel.ts, HOST_LINK). A fused B split into BI then
 *   BW only lets its output leave earlier. A recomputed forward runs right before its backward,
 *   once the gradient arrives (passes/src/passes/recompute.ts), so it lengthens the BI.
 * - Every device holds its resident state (16-bit weights and gradients, 12 bytes of fp32
 *   optimizer state per parameter, sharded as the ZeRO level says: docs/cost-model.md, "Memory
 *   per device"), and a forward's stash stays until its backward: the order's count of stashes in
 *   flight, each at least the block's activations over tp (only the kept input when recomputed,
 *   none when offloaded), freed as early as the BI.
 */
import type { BlockInfo, ScheduleBuilderName, TransformerModel } from '@stagecraft/ir';
import { getBuilder, lowerModel } from '@stagecraft/passes';
import { allReduceMs, type CostCluster, gemmRate, HOST_LINK } from '@stagecraft/sim';
import {
  type ActionCode,
  type OrderShape,
  type StageCosts,
  stashPeak,
  timeOrders,
} from '../order/orderTiming.ts';
import { builderInput } from '../order/pipeline.ts';
import { fromBuilt } from '../order/searchOrder.ts';
import type { Layout } from '../request.ts';

export interface LayoutBound {
  stepMs: number;
  memoryBytes: number;
}

interface BuilderOrders {
  shape: OrderShape;
  orders: ActionCode[][];
  /** Some slot runs an F and a B as one unit (DualPipeV): the two wait for their all-reduces at once. */
  overlaps: boolean;
}

/** Per virtual stage, at one microbatch size, before tensor parallelism divides it. */
interface StageFacts {
  /** ms of F, BI and BW of one microbatch at the dtype's peak (undivided by tp). */
  F: number[];
  BI: number[];
  BW: number[];
  /** Bytes tensor parallelism all-reduces between the stage's blocks in its forward and its backward. */
  forwardReduceBytes: number[];
  backwardReduceBytes: number[];
  /** How many all-reduces those are: each pays the ring's latency. */
  forwardReduces: number[];
  backwardReduces: number[];
  /** Output bytes of the stage's last block and input-gradient bytes of its first, when tp-split. */
  sendReduceBytes: number[];
  receiveReduceBytes: number[];
  activationBytes: number[];
  keptBytes: number[];
  /** The largest one block stashes: a RECOMPUTE or RELOAD brings back one block at a time. */
  blockActivationBytes: number[];
  denseParamBytes: number[];
  expertParamBytes: number[];
}

/** Bytes of resident state per 16-bit weight byte at a ZeRO level over n replicas (W, W, 6W / n as the table says). */
function residentFactor(zero: number, n: number): number {
  if (zero === 0) return 8;
  if (zero === 1) return 2 + 6 / n;
  if (zero === 2) return 1 + 7 / n;
  return 8 / n;
}

const hostCopyMs = (bytes: number) => HOST_LINK.latencyMs + bytes / HOST_LINK.bytesPerMs;

/** Relative rounding allowance of the bounds: far below any difference the front can show. */
const SLACK = 1e-9;

export class PipelineBounds {
  private readonly stages = new Map<string, StageFacts>();
  private readonly orders = new Map<string, BuilderOrders>();

  constructor(
    private readonly model: TransformerModel,
    private readonly cost: CostCluster & { kind: 'custom' },
  ) {}

  of(l: Layout): LayoutBound {
    const facts = this.stageFacts(l.microbatchSize, l.pp * l.vp);
    const { shape, orders, overlaps } = this.builderOrders(l);
    const S = shape.stages;
    const zeros = new Array<number>(S).fill(0);
    const link = this.cost.intraNode;
    const reduce = (bytes: number, count: number) =>
      count === 0 ? 0 : allReduceMs(l.tp, bytes, link) + (count - 1) * allReduceMs(l.tp, 0, link);
    // In an overlapped unit one all-reduce's wait covers its partner's: none is counted inside a stage.
    const inner = (bytes: number, count: number) => (overlaps ? 0 : reduce(bytes, count));
    const stash = facts.activationBytes.map((a) => a / l.tp);
    // What stays on the device from F to BI: all of it, the block input when recomputed, none offloaded.
    const kept = l.offload ? zeros : l.recompute ? facts.keptBytes.map((a) => a / l.tp) : stash;
    const costs: StageCosts = {
      F: facts.F.map((x, s) => x / l.tp + inner(facts.forwardReduceBytes[s]!, facts.forwardReduces[s]!)),
      BI: facts.BI.map(
        (x, s) =>
          (x + (l.recompute ? facts.F[s]! : 0)) / l.tp +
          inner(facts.backwardReduceBytes[s]!, facts.backwardReduces[s]!),
      ),
      BW: facts.BW.map((x) => x / l.tp),
      sendF: facts.sendReduceBytes.map((b) => reduce(b, b > 0 ? 1 : 0)),
      sendB: facts.receiveReduceBytes.map((b) => reduce(b, b > 0 ? 1 : 0)),
      alloc: kept,
      freeBI: kept,
      freeBW: zeros,
    };
    const timing = timeOrders(shape, costs, orders);
    // A builder's order never deadlocks; were it to, the compile refuses it and 0 bounds nothing.
    let stepMs = timing?.stepMs ?? 0;
    let memoryBytes = 0;
    for (let r = 0; r < shape.ranks; r++) {
      let resident = 0;
      // A recomputed or offloaded block's stash is whole again from its RECOMPUTE or RELOAD to its backward.
      let whole = 0;
      let copies = 0;
      for (let s = 0; s < S; s++) {
        if (shape.placement[s] !== r) continue;
        resident += (facts.denseParamBytes[s]! / l.tp) * residentFactor(l.zero, l.dp);
        resident += (facts.expertParamBytes[s]! / (l.tp * l.ep)) * residentFactor(l.zero, l.dp / l.ep);
        if (l.recompute || l.offload) whole = Math.max(whole, facts.blockActivationBytes[s]! / l.tp);
        if (l.offload) copies += 2 * l.microbatches * hostCopyMs(stash[s]!);
      }
      const held = resident + Math.max(stashPeak(shape, costs, orders[r]!), whole);
      if (held > memoryBytes) memoryBytes = held;
      if (copies > stepMs) stepMs = copies;
    }
    // A hair under, so summing in another order than the simulator never lifts a bound above it.
    return { stepMs: stepMs * (1 - SLACK), memoryBytes: memoryBytes * (1 - SLACK) };
  }

  private stageFacts(microbatchSize: number, stageCount: number): StageFacts {
    const key = `${microbatchSize}/${stageCount}`;
    let facts = this.stages.get(key);
    if (facts) return facts;
    const { cuts: _cuts, layout: _layout, ...annotate } = this.model.annotate ?? {};
    const blocks = lowerModel({
      ...this.model,
      microbatchSize,
      annotate: { ...annotate, PP: stageCount },
    } as TransformerModel);
    const values: number[] = [];
    for (const b of blocks) {
      const v = b.tags.PP;
      if (v !== undefined && !values.includes(v)) values.push(v);
    }
    const zero = () => new Array<number>(values.length).fill(0);
    facts = {
      F: zero(),
      BI: zero(),
      BW: zero(),
      forwardReduceBytes: zero(),
      backwardReduceBytes: zero(),
      forwardReduces: zero(),
      backwardReduces: zero(),
      sendReduceBytes: zero(),
      receiveReduceBytes: zero(),
      activationBytes: zero(),
      keptBytes: zero(),
      blockActivationBytes: zero(),
      denseParamBytes: zero(),
      expertParamBytes: zero(),
    };
    blocks.forEach((b, i) => {
      const s = values.indexOf(b.tags.PP ?? values[0]!);
      const next = blocks[i + 1];
      const split = b.tags.TP !== undefined;
      const nextStage = next ? values.indexOf(next.tags.PP ?? values[0]!) : -1;
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
      } else if (next) {
        if (split) facts.sendReduceBytes[s] = b.outputBytes;
        if (next.tags.TP !== undefined) facts.receiveReduceBytes[nextStage] = b.outputBytes;
      }
      const rate = this.rateOf(b);
      if (b.flops) {
        facts.F[s]! += b.flops.F / rate;
        facts.BI[s]! += b.flops.BI / rate;
        facts.BW[s]! += b.flops.BW / rate;
      }
      facts.activationBytes[s]! += b.activationBytes;
      facts.blockActivationBytes[s] = Math.max(facts.blockActivationBytes[s]!, b.activationBytes);
      facts.keptBytes[s]! += Math.min(b.activationBytes, b.recomputeActivationBytes ?? 0);
      if (b.tags.EP !== undefined) facts.expertParamBytes[s]! += b.paramBytes;
      else facts.denseParamBytes[s]! += b.paramBytes;
    });
    this.stages.set(key, facts);
    return facts;
  }

  private rateOf(b: BlockInfo): number {
    const gpu = this.cost.gpu;
    return gemmRate(b.kernels?.dtype === 'fp8' ? 'fp8' : 'bf16', gpu);
  }

  private builderOrders(l: Layout): BuilderOrders {
    const key = `${l.builder}/${l.pp}/${l.vp}/${l.microbatches}`;
    let built = this.orders.get(key);
    if (built) return built;
    const name = l.builder as ScheduleBuilderName;
    const schedule = getBuilder(name).build(builderInput(name, l.pp, l.microbatches, l.vp));
    const placement = schedule.placement as readonly number[];
    const shape: OrderShape = {
      stages: placement.length,
      microbatches: l.microbatches,
      placement,
      ranks: l.pp,
    };
    const overlaps = schedule.programs.some((program) => program.some((slot) => slot.length > 1));
    built = { shape, orders: fromBuilt(shape, schedule), overlaps };
    this.orders.set(key, built);
    return built;
  }
}
