/**
 * Sound lower bounds of a layout's simulated step and peak memory, known before it is compiled:
 * the builder's own per-rank order timed as a list schedule on costs no op can beat, and the
 * stash that order must hold on top of the state every device keeps. The layout search skips a
 * layout whose bounds a point of its front already reaches on both axes (that layout can only be
 * dominated), so the front it answers with is the true front of the layouts it covered.
 *
 * Why each piece is a lower bound of what the simulator computes:
 * - A compute op takes what the cost model gives its block as one member holds it (stageFacts.ts,
 *   stageCompute: its kernels' roofline over the tp and ep split), an overlapped unit the sum of
 *   its members (sim/src/unitTimes.ts); contention only slows it. Tensor parallelism divides a
 *   block's FLOPs and activations by tp only when `shard_tensor` splits it (tagged TP); a router
 *   or a routed expert runs whole on every member of a tp group.
 * - The simulator runs each rank's compute in the builder's order, an op starting no earlier than
 *   its inputs exist and the previous op of its stream has ended (design: streams are in order);
 *   p2p, collectives and host transfers only delay. Within a stage, the next block's forward waits
 *   for the all-reduce tensor parallelism puts on the previous block's output (and a backward on
 *   the next block's input gradient: passes/src/passes/shardTensor.ts), which takes at least the
 *   all-reduce of those bytes inside one node (a tp group is one node; sim/src/costModel.ts,
 *   collectiveSpanMs); at a stage's edge the all-reduce delays the send. Likewise an expert block inside a stage waits for its dispatch
 *   all-to-all and the block after it for the combine (the backward for their mirrors), each at
 *   least the all-to-all of its bytes over the stage's cheapest ep sub-group (sim/src/costModel.ts,
 *   spannedAllToAllMs), run in order on the ep stream.
 * - Data parallelism's collectives of a device run one after the other on its reduce stream
 *   (dataParallelMs): the step is at least their sum, each at least its collectiveSpanMs.
 * - An offloaded stash crosses the host link twice (OFFLOAD after F, RELOAD before B), one copy
 *   after the other on the device's offload stream, each at least the host link's latency plus
 *   its bytes at its bandwidth (sim/src/costModel.ts, HOST_LINK). A fused B split into BI then
 *   BW only lets its output leave earlier. A recomputed forward runs right before its backward,
 *   once the gradient arrives (passes/src/passes/recompute.ts), so it lengthens the BI.
 * - Every device holds its resident state (16-bit weights and gradients, 12 bytes of fp32
 *   optimizer state per parameter, sharded as the ZeRO level says: docs/cost-model.md, "Memory
 *   per device"), and a forward's stash stays until its backward: the order's count of stashes in
 *   flight, each at least the block's activations over tp (only the kept input when recomputed,
 *   none when offloaded), freed as early as the BI, or the BW when the builder splits the
 *   backward (the BI frees nothing then), a reloaded or recomputed stash whole again from the BI.
 */
import type { ScheduleBuilderName, TransformerModel } from '@stagecraft/ir';
import { getBuilder } from '@stagecraft/passes';
import {
  type CostCluster,
  collectiveSpanMs,
  type GroupSpan,
  HOST_LINK,
  spannedAllToAllMs,
} from '@stagecraft/sim';
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
import { type MeshAxis, subgroupSpans } from './meshGroups.ts';
import { type StageCompute, type StageFacts, stageCompute, stageFacts } from './stageFacts.ts';

export interface LayoutBound {
  stepMs: number;
  memoryBytes: number;
}

interface BuilderOrders {
  shape: OrderShape;
  orders: ActionCode[][];
  /** Some slot runs an F and a B as one unit (DualPipeV): the two wait for their all-reduces at once. */
  overlaps: boolean;
  /** The builder runs a backward as BI then BW, some BW after other work. */
  split: boolean;
}

interface PipelinePart {
  facts: StageFacts;
  placement: readonly number[];
  stepMs: number;
  /** Per rank, the least stash it holds at its peak. */
  held: number[];
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
  private readonly groupSpans = new Map<string, GroupSpan[][]>();
  private readonly pipelines = new Map<string, PipelinePart>();
  private readonly computes = new Map<string, StageCompute>();

  constructor(
    private readonly model: TransformerModel,
    private readonly cost: CostCluster & { kind: 'custom' },
  ) {}

  of(l: Layout): LayoutBound {
    const p = this.pipelinePart(l);
    const { split, whole } = p.facts;
    let stepMs = p.stepMs;
    let memoryBytes = 0;
    for (let r = 0; r < l.pp; r++) {
      let dense = 0;
      let experts = 0;
      for (let s = 0; s < p.placement.length; s++) {
        if (p.placement[s] !== r) continue;
        dense += split.denseParamBytes[s]! / l.tp + whole.denseParamBytes[s]!;
        experts += (split.expertParamBytes[s]! / l.tp + whole.expertParamBytes[s]!) / l.ep;
      }
      const resident = dense * residentFactor(l.zero, l.dp) + experts * residentFactor(l.zero, l.dp / l.ep);
      memoryBytes = Math.max(memoryBytes, resident + p.held[r]!);
      stepMs = Math.max(stepMs, this.dataParallelMs(l, r, dense, experts));
    }
    // A hair under, so summing in another order than the simulator never lifts a bound above it.
    return { stepMs: stepMs * (1 - SLACK), memoryBytes: memoryBytes * (1 - SLACK) };
  }

  /**
   * What a layout's bounds owe its pipeline, the same at every ZeRO level: the order's step on the
   * least costs, the host copies, and per rank the stash it holds at its peak.
   */
  private pipelinePart(l: Layout): PipelinePart {
    const key = `${l.builder}/${l.pp}/${l.vp}/${l.microbatches}/${l.microbatchSize}/${l.tp}/${l.dp}/${l.ep}/${l.recompute}/${l.offload}`;
    const cached = this.pipelines.get(key);
    if (cached) return cached;
    const facts = this.stageFacts(l.microbatchSize, l.pp * l.vp);
    const { shape, orders, overlaps, split: splitOrder } = this.builderOrders(l);
    const S = shape.stages;
    const zeros = new Array<number>(S).fill(0);
    const node: GroupSpan = { n: l.tp, nodes: 1, perNode: l.tp };
    const allReduce = (bytes: number) => collectiveSpanMs(this.cost, 'ALL_REDUCE', node, bytes);
    const reduce = (bytes: number, count: number) =>
      count === 0 ? 0 : allReduce(bytes) + (count - 1) * allReduce(0);
    // In an overlapped unit one collective's wait covers its partner's: none is counted inside a stage.
    const inner = (bytes: number, count: number) => (overlaps ? 0 : reduce(bytes, count));
    const exchange = this.exchangeMs(l, facts.expertExchangeBytes, shape.placement, overlaps);
    const { split, whole } = facts;
    const stash = split.activationBytes.map((a, s) => a / l.tp + whole.activationBytes[s]!);
    // What stays on the device from F to BI: all of it, the block input when recomputed, none offloaded.
    const kept = l.offload
      ? zeros
      : l.recompute
        ? split.keptBytes.map((a, s) => a / l.tp + whole.keptBytes[s]!)
        : stash;
    // Not counted for a recompute inside overlapped F&B units, whose peaks the brute-force test
    // (pipelineBounds.test.ts) found under it.
    const regrown = l.offload ? stash : l.recompute && !overlaps ? stash.map((x, s) => x - kept[s]!) : zeros;
    const { F, BI, BW } = this.compute(l, facts);
    const costs: StageCosts = {
      F: F.map((x, s) => x + inner(facts.forwardReduceBytes[s]!, facts.forwardReduces[s]!) + exchange[s]!),
      BI: BI.map(
        (x, s) =>
          x +
          (l.recompute ? F[s]! : 0) +
          inner(facts.backwardReduceBytes[s]!, facts.backwardReduces[s]!) +
          exchange[s]!,
      ),
      BW,
      sendF: facts.sendReduceBytes.map((b) => reduce(b, b > 0 ? 1 : 0)),
      sendB: facts.receiveReduceBytes.map((b) => reduce(b, b > 0 ? 1 : 0)),
      alloc: kept,
      // Split backwards free the stash at the BW (passes/src/passes/splitBackward.ts: the BI frees
      // nothing). A reloaded stash is back whole before the BI; a recomputed one at least what the
      // kept input left out (a block that keeps its whole stash is not recomputed), each held to
      // the BW with the kept input (passes/src/passes/recompute.ts, `freeingOp`). A fused B frees
      // it all as it ends.
      freeBI: splitOrder ? regrown.map((x) => -x) : kept,
      freeBW: splitOrder ? regrown.map((x, s) => x + kept[s]!) : zeros,
    };
    const timing = timeOrders(shape, costs, orders);
    // A builder's order never deadlocks; were it to, the compile refuses it and 0 bounds nothing.
    let stepMs = timing?.stepMs ?? 0;
    const held: number[] = [];
    for (let r = 0; r < shape.ranks; r++) {
      // A recomputed or offloaded block's stash is whole again from its RECOMPUTE or RELOAD to its backward.
      let back = 0;
      let copies = 0;
      for (let s = 0; s < S; s++) {
        if (shape.placement[s] !== r) continue;
        if (l.recompute || l.offload)
          back = Math.max(back, split.blockActivationBytes[s]! / l.tp, whole.blockActivationBytes[s]!);
        if (l.offload) copies += 2 * l.microbatches * hostCopyMs(stash[s]!);
      }
      held.push(Math.max(stashPeak(shape, costs, orders[r]!), back));
      if (copies > stepMs) stepMs = copies;
    }
    const part = { facts, placement: shape.placement, stepMs, held };
    this.pipelines.set(key, part);
    return part;
  }

  /**
   * The data-parallel collectives one device of rank r runs on its reduce stream, one after the
   * other (replicate's `reduce_stream`, which layoutDesign gives its gathers too:
   * passes/src/passes/replicate.ts): ZeRO-0 all-reduces the gradients once; ZeRO-1 reduce-scatters
   * them once and all-gathers the parameters after the step; ZeRO-2 reduce-scatters after every
   * microbatch; ZeRO-3 also all-gathers a block's parameters before each F and each B. Summed
   * into one collective per kind and group (buckets only add latencies), on the rank's cheapest
   * sub-group; dense blocks over dp × ep, experts over the outer dp alone.
   */
  private dataParallelMs(l: Layout, r: number, denseBytes: number, expertBytes: number): number {
    const m = l.microbatches;
    const [reduces, scatters, gathers] =
      l.zero === 0 ? [1, 0, 0] : l.zero === 1 ? [0, 1, 1] : l.zero === 2 ? [0, m, 1] : [0, m, 2 * m];
    let ms = 0;
    for (const [bytes, axes] of [
      [denseBytes, ['outer', 'ep']],
      [expertBytes, ['outer']],
    ] as const) {
      if (bytes === 0) continue;
      const spans = this.spans(l, axes)[r]!;
      ms += Math.min(
        ...spans.map(
          (span) =>
            reduces * collectiveSpanMs(this.cost, 'ALL_REDUCE', span, bytes) +
            scatters * collectiveSpanMs(this.cost, 'REDUCE_SCATTER', span, bytes) +
            gathers * collectiveSpanMs(this.cost, 'ALL_GATHER', span, bytes),
        ),
      );
    }
    return ms;
  }

  /**
   * Per virtual stage, the all-to-alls expert parallelism runs inside it, each on the cheapest of
   * the stage's ep sub-groups: an expert block waits for its dispatch and the block after it for
   * the combine (the ep stream runs them in order), in the forward and again in the backward.
   * Beside tensor parallelism too: every tp member exchanges its whole tokens (routers and routed
   * experts run whole on each), after the all-reduce of a split block's output or input gradient.
   */
  private exchangeMs(
    l: Layout,
    exchanges: readonly (readonly number[])[],
    placement: readonly number[],
    overlaps: boolean,
  ): number[] {
    if (l.ep <= 1 || overlaps) return exchanges.map(() => 0);
    const spans = this.spans(l, ['ep']);
    return exchanges.map((list, s) => {
      const rankSpans = spans[placement[s]!]!;
      let ms = 0;
      for (const bytes of list)
        ms += Math.min(...rankSpans.map((span) => spannedAllToAllMs(this.cost, span, bytes)));
      return ms;
    });
  }

  private compute(l: Layout, facts: StageFacts): StageCompute {
    const key = `${l.microbatchSize}/${l.pp * l.vp}/${l.tp}/${l.ep}`;
    let c = this.computes.get(key);
    if (!c) {
      c = stageCompute(facts, l.tp, l.ep, this.cost);
      this.computes.set(key, c);
    }
    return c;
  }

  private spans(l: Layout, axes: readonly MeshAxis[]): GroupSpan[][] {
    const key = `${l.pp}/${l.dp}/${l.tp}/${l.ep}/${axes.join(',')}`;
    let spans = this.groupSpans.get(key);
    if (!spans) {
      spans = subgroupSpans(this.cost, l, axes);
      this.groupSpans.set(key, spans);
    }
    return spans;
  }

  private stageFacts(microbatchSize: number, stageCount: number): StageFacts {
    const key = `${microbatchSize}/${stageCount}`;
    let facts = this.stages.get(key);
    if (!facts) {
      facts = stageFacts(this.model, microbatchSize, stageCount);
      this.stages.set(key, facts);
    }
    return facts;
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
    const split = schedule.programs.some((program) =>
      program.some((slot) => slot.some((a) => a.pass === 'BI')),
    );
    built = { shape, orders: fromBuilt(shape, schedule), overlaps, split };
    this.orders.set(key, built);
    return built;
  }
}
