/**
 * `shard_tensor`: tensor parallelism (Megatron-style) of a region over its device group. Every
 * member computes 1/n of each block (its costs, parameters and stashed activations are divided by
 * n; each GEMM's output width n when column-parallel, its reduction k when row-parallel) and the
 * block's output is summed across members: an ALL_REDUCE on every forward edge leaving
 * a block of the region and on every backward edge leaving it (the gradient of its input). Each
 * block is its own unit, as Megatron all-reduces after both attention and MLP. A group is either
 * tensor parallel or data parallel: a block `replicate` already covers on the group is an error,
 * unless the two run over different axes of its mesh (tp × dp): then each sub-group along the
 * `axis` splits the blocks (n is the sub-group's size) and all-reduces among its own members.
 *
 * `sequence_parallel` (Megatron's, Korthikanti et al. 2022 §4.2.2): each all-reduce becomes a
 * reduce-scatter leaving the block and an all-gather entering the next, the same bytes on the
 * wire (a ring all-reduce is the two), while the norm activations between them are held 1/n. The
 * all-gather of a block's input that Megatron repeats in the backward for the weight gradient,
 * overlapped there with the input-gradient GEMM, is not charged. Without it (`false`) the norm
 * activations and the checkpointed input stay whole on every member; absent, every activation is
 * counted 1/n with all-reduces, as designs written before the option were. `comm_overlap` pipelines
 * those reduce-scatters and all-gathers with the GEMMs (tensorParallelOverlap.ts).
 */
import {
  type BlockInfo,
  CompileError,
  type Dag,
  EDGE_DATA,
  EDGE_TEMPORAL,
  type EdgeList,
  formatPath,
  type NodeTable,
  nodeIdOf,
  OP_ALL_GATHER,
  OP_ALL_REDUCE,
  OP_ALL_TO_ALL,
  OP_RECV,
  OP_REDUCE_SCATTER,
  OP_SEND,
  OP_UPD,
  type OwnTable,
  type PerPass,
  type RecomputePart,
  type RecomputePartCost,
} from '@stagecraft/ir';
import type { Adjacency } from '../dag/adjacency.ts';
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { familyOf, nodeFamily } from '../program/region.ts';
import { type RegionDirective, regionDirectives } from '../program/regionDirectives.ts';
import { DagRewrite } from './dagRewrite.ts';
import { allGatherChunks, type OverlapWiring, REDUCE_SCATTER_CHUNKS } from './tensorParallelOverlap.ts';

export const shardTensorPass: Pass = {
  name: 'shard-tensor',
  reads: ['shard_tensor'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'shard_tensor', 'shard-tensor');
    if (rewrite === undefined) return dag;
    const sharding = startSharding(dag);
    for (const directive of regionDirectives(dag, ctx, rewrite.directives, 'shard-tensor')) {
      const r = directive.region;
      sharding.tensorParallel.push(
        r.mask === null
          ? { group: r.group, blocks: r.blocks }
          : { group: r.group, blocks: r.blocks, mask: r.mask },
      );
      refuseDataParallelOverlap(dag, ctx, directive);
      divideBlocks(dag, sharding, directive);
      if (r.degree === 1) continue;
      reduceRegionOutputs(dag, rewrite, sharding, directive);
    }
    const sendBytes = scatterGatherSends(dag, rewrite, sharding);
    wireGatherRests(dag, rewrite, sharding.overlap);
    const { t, edges } = rewrite;
    const { degree, blocks, tensorParallel, subgroups } = sharding;
    const out = rewrite.rows.table(
      degree.size > 0 ? ['alloc', 'free', ...(sendBytes.size > 0 ? (['bytes'] as const) : [])] : [],
    );
    for (const [i, b] of sendBytes) out.bytes[i] = b;
    if (degree.size > 0) divideMemoryEffects(t, sharding, out);
    return rewritten(
      dag,
      ctx,
      subgroups.size > 0
        ? { blocks, edges: edges.list(), tensorParallel, subgroups }
        : { blocks, edges: edges.list(), tensorParallel },
      out,
    );
  },
};

type ShardTensorRewrite = DagRewrite<'shard_tensor'>;
type ShardTensorRegion = RegionDirective<'shard_tensor'>;

/** What the pass has made so far, over the directives' regions. */
interface Sharding {
  blocks: BlockInfo[];
  /** Each tensor-parallel block's n. */
  degree: Map<number, number>;
  /** Where each tensor-parallel block (n > 1) is split, for the sends between such stages. */
  regionOf: Map<number, TensorParallelStage>;
  sends: { edge: number; u: number; collective: number; sequenceParallel: boolean }[];
  /** Under sequence parallelism, the all-gather after each producing op's reduce-scatter. */
  gatherOf: Map<number, number>;
  /** The factor a block's ops' memory effects scale by when its norms stay whole (else 1/n). */
  memory: Map<number, number>;
  tensorParallel: NonNullable<Dag['tensorParallel']>[number][];
  subgroups: Map<number, number>;
  /** Under `comm_overlap`: the chunks each collective left on the critical path, and what waits for the rest. */
  overlap: OverlapWiring;
}

function startSharding(dag: Dag): Sharding {
  return {
    blocks: dag.blocks.slice(),
    degree: new Map(),
    regionOf: new Map(),
    sends: [],
    gatherOf: new Map(),
    memory: new Map(),
    tensorParallel: [...(dag.tensorParallel ?? [])],
    subgroups: new Map(dag.subgroups ?? []),
    overlap: { scatterOf: new Map(), hiddenScatterOf: new Map(), restOf: new Map(), gatherRest: new Map() },
  };
}

/** A group is tensor or data parallel, unless the two run over different axes of its mesh. */
function refuseDataParallelOverlap(
  dag: Dag,
  ctx: PassContext,
  { region: r, members, path }: ShardTensorRegion,
): void {
  for (const dp of dag.dataParallel ?? []) {
    if (dp.group !== r.group) continue;
    // Over different axes of one mesh (tp and dp), both hold: each runs over its own sub-groups.
    if (dp.mask !== undefined && r.mask !== null && (dp.mask & r.mask) === 0) continue;
    const b = r.blocks.find((x) => dp.blocks.includes(x));
    if (b !== undefined)
      throw new CompileError({
        path: formatPath([...path, 'filter']),
        message: `block ${b} (${dag.blocks[b]!.name}) on devices [${members.join(', ')}] is data parallel by ${formatPath(ctx.program[dp.directive]!.path)}; shard_tensor and replicate cannot cover the same region of one group${r.mask === null ? '' : ' over the same mesh axis'}`,
      });
  }
}

/** Each block of the region as one of its n members holds it; a block split twice is an error. */
function divideBlocks(dag: Dag, s: Sharding, { d, region: r, path }: ShardTensorRegion): void {
  for (const b of r.blocks) {
    if (s.degree.has(b))
      throw new CompileError({
        path: formatPath([...path, 'filter']),
        message: `block ${b} (${dag.blocks[b]!.name}) is already tensor parallel`,
      });
    s.degree.set(b, r.degree);
    s.blocks[b] = divided(dag.blocks[b]!, r.degree, d.sequence_parallel);
    const before = dag.blocks[b]!.activationBytes;
    if (d.sequence_parallel === false && before > 0) s.memory.set(b, s.blocks[b]!.activationBytes / before);
  }
}

/**
 * Pass family of the consumer v of a region op u's output: a compute op's or a SEND/RECV's; an
 * expert all-to-all (`shard` runs first and puts it on the edge, only between ops of one family)
 * takes u's. The members' partial sums are reduced before they are exchanged, as Megatron-LM
 * all-reduces a tensor-parallel block's output (or input gradient) before the MoE token
 * dispatcher sees it.
 */
function consumerFamily(t: NodeTable, u: number, v: number): 'F' | 'B' | null {
  return t.op[v] === OP_ALL_TO_ALL && t.provPass[v] === t.names.indexOf('shard')
    ? familyOf(t.op[u]!)
    : nodeFamily(t, v);
}

/**
 * The sum across members of what the region's ops send out of a block: per producing op its
 * all-reduce, or under sequence parallelism its reduce-scatter and (made when a consumer needs the
 * whole tensor here) the all-gather after it.
 */
function reduceRegionOutputs(
  dag: Dag,
  { t, rows, edges }: ShardTensorRewrite,
  s: Sharding,
  { d, region: r, ops: inRegion, provenance, stream }: ShardTensorRegion,
): void {
  const n = r.degree;
  const sequenceParallel = d.sequence_parallel === true;
  // Under comm_overlap the chunk of each collective that waits on the critical path.
  const overlap = d.comm_overlap === true;
  const scatterShare = overlap ? 1 / REDUCE_SCATTER_CHUNKS : 1;
  const gatherShare = overlap ? 1 / allGatherChunks(n) : 1;
  for (const b of r.blocks)
    s.regionOf.set(b, {
      n,
      group: r.group,
      mask: r.mask,
      stream,
      directive: provenance.directive ?? -1,
      scatterGather: sequenceParallel || d.scatter_gather_sends === true,
    });
  const add = (op: number, name: string, like: number, bytes: number, part = 'tp') => {
    const x = rows.add({
      op,
      like,
      group: r.group,
      stream,
      directive: provenance.directive ?? -1,
      bytes,
      id: `${name}.${part}.${nodeIdOf(dag, like)}`,
    });
    if (r.mask !== null) s.subgroups.set(x, r.mask);
    return x;
  };
  const e = dag.edges;
  const arOf = new Map<number, number>();
  const count = e.from.length;
  for (let j = 0; j < count; j++) {
    if (e.kind[j] !== EDGE_DATA) continue;
    const u = edges.from[j]!;
    const v = edges.to[j]!;
    // u is in the region (a node of the input); v the input's too (`to` never changes).
    if (!inRegion.has(u)) continue;
    if (t.group[v] !== r.group || (t.op[v]! <= OP_UPD && t.block[v] === t.block[u])) continue;
    if (familyOf(t.op[u]!) !== consumerFamily(t, u, v)) continue;
    const bytes = e.bytes[j]!;
    let a = arOf.get(u);
    if (a === undefined) {
      a = add(
        sequenceParallel ? OP_REDUCE_SCATTER : OP_ALL_REDUCE,
        sequenceParallel ? 'REDUCE_SCATTER' : 'ALL_REDUCE',
        u,
        bytes * scatterShare,
      );
      arOf.set(u, a);
      edges.push(u, a, bytes);
      if (overlap) {
        // The chunks reduced while u still computes: from when u's inputs are ready.
        const hidden = add(OP_REDUCE_SCATTER, 'REDUCE_SCATTER', u, bytes * (1 - scatterShare), 'tp-overlap');
        edges.push(hidden, a, 0, EDGE_TEMPORAL);
        s.overlap.scatterOf.set(u, a);
        s.overlap.hiddenScatterOf.set(u, hidden);
      }
    }
    if (t.op[v] === OP_SEND) s.sends.push({ edge: j, u, collective: a, sequenceParallel });
    if (sequenceParallel && t.op[v] !== OP_SEND) {
      let g = s.gatherOf.get(u);
      if (g === undefined) {
        g = add(OP_ALL_GATHER, 'ALL_GATHER', u, bytes * gatherShare);
        s.gatherOf.set(u, g);
        edges.push(a, g, bytes);
        if (overlap) {
          // The chunks gathered while the consumer computes on the first ones.
          const rest = add(OP_ALL_GATHER, 'ALL_GATHER', u, bytes * (1 - gatherShare), 'tp-overlap');
          edges.push(g, rest, 0, EDGE_TEMPORAL);
          s.overlap.gatherRest.set(rest, []);
          s.overlap.restOf.set(g, rest);
        }
      }
      const rest = s.overlap.restOf.get(g);
      if (rest !== undefined) s.overlap.gatherRest.get(rest)!.push(v);
      a = g;
    }
    edges.from[j] = a;
  }
}

/**
 * A send of a tensor-parallel block's output to a stage tensor parallel n ways too, in the
 * scatter-gather form: each member sends 1/n and the receivers all-gather it (Megatron-LM's
 * default without sequence parallelism, `--no-scatter-gather-tensors-in-pipeline` to disable;
 * under sequence parallelism the tensor sent is already the member's 1/n of the sequence).
 * Returns the bytes each such SEND and RECV now moves.
 */
function scatterGatherSends(dag: Dag, { t, rows, edges, out: adjacency }: ShardTensorRewrite, s: Sharding) {
  const sendBytes = new Map<number, number>();
  const e = dag.edges;
  for (const { edge, u, collective, sequenceParallel } of s.sends) {
    const from = s.regionOf.get(t.block[u]!)!;
    const send = edges.to[edge]!;
    const recv = recvOf(t, send, adjacency, e.to);
    const consumers = recv < 0 ? [] : targets(recv, adjacency, e);
    const to = consumers.length > 0 ? s.regionOf.get(t.block[consumers[0]!]!) : undefined;
    const fits =
      from.scatterGather &&
      to !== undefined &&
      to.n === from.n &&
      consumers.every((v) => s.regionOf.get(t.block[v]!) === to);
    if (!fits) {
      if (!sequenceParallel) continue;
      // The sending stage gathers the whole tensor before it sends, as without the option.
      let g = s.gatherOf.get(u);
      if (g === undefined) {
        g = rows.add({
          op: OP_ALL_GATHER,
          like: u,
          group: from.group,
          stream: from.stream,
          directive: from.directive,
          bytes: e.bytes[edge]!,
          id: `ALL_GATHER.tp.${nodeIdOf(dag, u)}`,
        });
        if (from.mask !== null) s.subgroups.set(g, from.mask);
        s.gatherOf.set(u, g);
        edges.push(collective, g, e.bytes[edge]!);
      }
      edges.from[edge] = g;
      continue;
    }
    const bytes = e.bytes[edge]!;
    sendBytes.set(send, bytes / from.n);
    sendBytes.set(recv, bytes / from.n);
    for (let k = adjacency.offset[send]!; k < adjacency.offset[send + 1]!; k++)
      if (e.to[adjacency.edge[k]!] === recv) edges.bytes[adjacency.edge[k]!] = bytes / from.n;
    const g = rows.add({
      op: OP_ALL_GATHER,
      like: recv,
      group: to.group,
      stream: to.stream,
      directive: to.directive,
      bytes,
      id: `ALL_GATHER.tp.${nodeIdOf(dag, recv)}`,
    });
    if (to.mask !== null) s.subgroups.set(g, to.mask);
    for (let k = adjacency.offset[recv]!; k < adjacency.offset[recv + 1]!; k++) {
      const j = adjacency.edge[k]!;
      if (e.kind[j] === EDGE_DATA) edges.from[j] = g;
    }
    edges.push(recv, g, bytes);
  }
  return sendBytes;
}

/**
 * What a consumer of an overlapped all-gather makes is complete once the gather's rest has arrived:
 * its own reduce-scatter waits for it, or, without one, whatever consumes it.
 */
function wireGatherRests(
  dag: Dag,
  { edges, out, inc }: ShardTensorRewrite,
  { scatterOf, hiddenScatterOf, restOf, gatherRest }: OverlapWiring,
): void {
  const e = edges;
  // A reduce-scatter's hidden chunks start with their producer: when its inputs, gathered ones
  // included, have arrived (the inputs as rewired, so it never queues ahead of the gather it needs).
  for (const [u, hidden] of hiddenScatterOf)
    for (let k = inc.offset[u]!; k < inc.offset[u + 1]!; k++) {
      const j = inc.edge[k]!;
      if (dag.edges.kind[j] !== EDGE_DATA) continue;
      const from = e.from[j]!;
      edges.push(restOf.get(from) ?? from, hidden, 0, EDGE_TEMPORAL);
    }
  for (const [rest, consumers] of gatherRest)
    for (const v of consumers) {
      const scatter = scatterOf.get(v);
      if (scatter !== undefined) {
        edges.push(rest, scatter, 0, EDGE_TEMPORAL);
        continue;
      }
      for (let k = out.offset[v]!; k < out.offset[v + 1]!; k++)
        edges.push(rest, e.to[out.edge[k]!]!, 0, EDGE_TEMPORAL);
    }
}

/**
 * Each member computes 1/n of a block: its ops' memory effects too (the norms' whole without
 * sequence parallelism).
 */
function divideMemoryEffects(t: NodeTable, { degree, memory }: Sharding, out: OwnTable): void {
  for (let i = 0; i < t.length; i++) {
    const n = t.op[i]! <= OP_UPD ? degree.get(t.block[i]!) : undefined;
    if (n === undefined || n === 1) continue;
    const k = memory.get(t.block[i]!);
    out.alloc[i] = k === undefined ? t.alloc[i]! / n : t.alloc[i]! * k;
    out.free[i] = k === undefined ? t.free[i]! / n : t.free[i]! * k;
  }
}

interface TensorParallelStage {
  n: number;
  group: number;
  mask: number | null;
  stream: string;
  directive: number;
  /** Its sends to a stage split as many ways go as 1/n per member, gathered by the receivers. */
  scatterGather: boolean;
}

/** The RECV a SEND feeds, or −1. */
function recvOf(t: NodeTable, send: number, out: Adjacency, to: Int32Array): number {
  for (let k = out.offset[send]!; k < out.offset[send + 1]!; k++) {
    const r = to[out.edge[k]!]!;
    if (t.op[r] === OP_RECV) return r;
  }
  return -1;
}

/** The nodes node i's data edges reach. */
function targets(i: number, out: Adjacency, e: EdgeList): number[] {
  const list: number[] = [];
  for (let k = out.offset[i]!; k < out.offset[i + 1]!; k++) {
    const j = out.edge[k]!;
    if (e.kind[j] === EDGE_DATA) list.push(e.to[j]!);
  }
  return list;
}

/** Block b as each of n members holds it; `sequenceParallel` as the directive's option. */
function divided(b: BlockInfo, n: number, sequenceParallel: boolean | undefined): BlockInfo {
  // Without sequence parallelism every member holds the norms' input and output whole.
  const whole = sequenceParallel === false ? (b.sequenceActivationBytes ?? 0) : 0;
  const out: BlockInfo = {
    ...b,
    activationBytes: (b.activationBytes - whole) / n + whole,
    paramBytes: b.paramBytes / n,
  };
  if (b.sharedParams) out.sharedParams = { ...b.sharedParams, bytes: b.sharedParams.bytes / n };
  if (b.ms)
    out.ms = { F: b.ms.F / n, BI: b.ms.BI / n, BW: b.ms.BW / n, FandB: b.ms.FandB / n, UPD: b.ms.UPD / n };
  if (b.flops) out.flops = { F: b.flops.F / n, BI: b.flops.BI / n, BW: b.flops.BW / n };
  if (b.kernels) {
    out.kernels = {
      ...b.kernels,
      gemms: b.kernels.gemms.map((g) => (g.split === 'n' ? { ...g, n: g.n / n } : { ...g, k: g.k / n })),
    };
    const w = b.kernels.elementwiseBytes;
    // Norms and residual adds run on every member's whole hidden state unless the sequence is split.
    if (w !== undefined)
      out.kernels.elementwiseBytes = {
        sequence: perPassOver(w.sequence, sequenceParallel === false ? 1 : n),
        split: perPassOver(w.split, n),
      };
  }
  // The checkpointed input is the norm's input: whole on every member without sequence parallelism.
  if (b.recomputeActivationBytes !== undefined)
    out.recomputeActivationBytes =
      sequenceParallel === false ? b.recomputeActivationBytes : b.recomputeActivationBytes / n;
  if (b.sequenceActivationBytes !== undefined)
    out.sequenceActivationBytes = b.sequenceActivationBytes / (sequenceParallel === false ? 1 : n);
  if (b.recomputeParts !== undefined) {
    const parts: NonNullable<BlockInfo['recomputeParts']> = {};
    // A norm's output is sequence-sharded only under sequence parallelism, like the norm's input.
    for (const [part, cost] of Object.entries(b.recomputeParts) as [RecomputePart, RecomputePartCost][])
      parts[part] = withElementwise(
        { ...cost, bytes: part === 'norm' && sequenceParallel === false ? cost.bytes : cost.bytes / n },
        cost.elementwiseBytes,
        part === 'norm' && sequenceParallel === false ? 1 : n,
      );
    out.recomputeParts = parts;
  }
  return out;
}

/** Each pass's bytes over n members. */
function perPassOver(p: PerPass, n: number): PerPass {
  return { F: p.F / n, BI: p.BI / n, BW: p.BW / n };
}

/** A recomputed part with its elementwise bytes (if any) over n members, as its stash bytes. */
function withElementwise(cost: RecomputePartCost, bytes: number | undefined, n: number): RecomputePartCost {
  return bytes === undefined ? cost : { ...cost, elementwiseBytes: bytes / n };
}
