/**
 * `shard_sequence`: context parallelism of a region over the members of a sub-group along mesh
 * axes (or over its whole group). Each member holds 1/cp of every microbatch's sequence: a block's
 * FLOPs, GEMM rows, stashed activations and the hidden states it sends are divided by cp (the
 * causal attention too: Megatron-LM splits the sequence into 2·cp chunks and gives member r
 * chunks r and 2·cp−1−r, so every member does the same share of the triangle). Parameters stay
 * whole; their gradient is reduced over the cp members by data parallelism's reduce (the
 * `replicate` pass folds the axis in).
 *
 * Each attention block exchanges its keys and values among the members, `kvBytes` (the whole
 * sequence's) per microbatch:
 * - "ring": K/V pass around the ring in cp−1 point-to-point steps while the attention runs on the
 *   chunk at hand; costed as a ring all-gather (the same cp−1 steps of 1/cp each on the same
 *   link), on its own stream, started with the block's forward and finished before its output is
 *   used. The backward passes K/V again and their gradients back (an all-gather and a
 *   reduce-scatter, overlapped with the backward likewise).
 * - "all_gather": an ALL_GATHER of K/V the forward waits for; in the backward K/V gathered again
 *   before it and their gradients reduce-scattered after it, before the input gradient leaves.
 * A synthetic model's blocks stand for whole layers: each exchanges its input (outputBytes).
 */
import {
  type BlockInfo,
  CompileError,
  type ContextParallelRegion,
  type Dag,
  EDGE_DATA,
  formatPath,
  type NodeTable,
  nodeIdOf,
  OP_ALL_GATHER,
  OP_B,
  OP_BI,
  OP_F,
  OP_RECV,
  OP_REDUCE_SCATTER,
  OP_UPD,
  type OwnTable,
  tensorParallelDegree,
} from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { type RegionDirective, regionDirectives } from '../program/regionDirectives.ts';
import { DagRewrite } from './dagRewrite.ts';

/** Where K/V exchanges run unless the directive names a stream: apart from compute, to overlap it. */
export const CONTEXT_PARALLEL_STREAM = 'cp';

/** Passes whose collectives carry activations (divided with the sequence); `replicate`'s carry parameters. */
const ACTIVATION_PASSES = new Set(['shard', 'shard-tensor']);

export const shardSequencePass: Pass = {
  name: 'shard-sequence',
  reads: ['shard_sequence'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'shard_sequence', 'shard-sequence');
    if (rewrite === undefined) return dag;
    const blocks = dag.blocks.slice();
    const degree = new Map<string, number>();
    const regions: ContextParallelRegion[] = [...(dag.contextParallel ?? [])];
    const subgroups = new Map(dag.subgroups ?? []);
    const synthetic = ctx.design.model.kind !== 'transformer';
    const exchanges = new Map<number, number>();
    const held = new Map<number, number>();
    for (const directive of regionDirectives(dag, ctx, rewrite.directives, 'shard-sequence')) {
      const { d, region: r, path, members } = directive;
      const form = d.form ?? 'ring';
      for (const b of r.blocks) {
        const k = `${r.group}:${b}`;
        if (degree.has(k))
          throw new CompileError({
            path: formatPath([...path, 'filter']),
            message: `block ${b} (${dag.blocks[b]!.name}) on devices [${members.join(', ')}] already has its sequence split`,
          });
        degree.set(k, r.degree);
        // Blocks are shared by every group holding them: a block split on one group is split on all.
        const prev = blocks[b]!;
        if (prev !== dag.blocks[b] && prev.tokens !== divided(dag.blocks[b]!, r.degree).tokens)
          throw new CompileError({
            path: formatPath([...path, 'axis']),
            message: `block ${b} (${dag.blocks[b]!.name}) has its sequence split another number of ways on another group; every copy of a block splits it alike`,
          });
        blocks[b] = divided(dag.blocks[b]!, r.degree);
      }
      regions.push(
        r.mask === null
          ? {
              group: r.group,
              blocks: r.blocks,
              degree: r.degree,
              form,
              directive: directive.provenance.directive!,
            }
          : {
              group: r.group,
              blocks: r.blocks,
              degree: r.degree,
              form,
              directive: directive.provenance.directive!,
              mask: r.mask,
            },
      );
      if (r.degree > 1)
        exchangeKeysAndValues(dag, rewrite, directive, form, synthetic, { subgroups, exchanges, held });
    }
    const out = rewrite.rows.table(['alloc', 'free', 'bytes']);
    // Each exchange names the pass it serves, as a transfer does: a runtime reads which tensor it moves.
    for (const [x, op] of exchanges) out.pass[x] = op;
    divideSequenceTraffic(rewrite, degree, out);
    // The exchanged K/V (and their gradients) live while the attention op that reads them runs.
    for (const [i, bytes] of held) {
      out.alloc[i]! += bytes;
      out.free[i]! += bytes;
    }
    return rewritten(
      dag,
      ctx,
      { blocks, edges: rewrite.edges.list(), contextParallel: regions, subgroups },
      out,
    );
  },
};

type ShardSequenceRegion = RegionDirective<'shard_sequence'>;

/** The K/V exchanges of the region's attention blocks, per forward and backward op. */
function exchangeKeysAndValues(
  dag: Dag,
  { t, rows, edges, inc, out: adjacency }: DagRewrite<'shard_sequence'>,
  { d, region: r, ops, provenance }: ShardSequenceRegion,
  form: 'ring' | 'all_gather',
  synthetic: boolean,
  into: {
    subgroups: Map<number, number>;
    exchanges: Map<number, number>;
    /** Per attention op, the exchanged bytes it holds while it runs (exchangeBuffers). */
    held: Map<number, number>;
  },
): void {
  const { subgroups, exchanges, held } = into;
  const stream = d.stream ?? CONTEXT_PARALLEL_STREAM;
  const e = dag.edges;
  const add = (op: number, name: string, like: number, bytes: number) => {
    const x = rows.add({
      op,
      like,
      group: r.group,
      stream,
      directive: provenance.directive ?? -1,
      bytes,
      id: `${name}.cp.${nodeIdOf(dag, like)}`,
    });
    if (r.mask !== null) subgroups.set(x, r.mask);
    exchanges.set(x, t.op[like]!);
    return x;
  };
  /** The ops whose data reach node i (what an exchange started with it waits for). */
  const inputs = (i: number) => {
    const list: number[] = [];
    for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
      const j = inc.edge[k]!;
      if (e.kind[j] === EDGE_DATA && t.group[e.from[j]!] === r.group) list.push(e.from[j]!);
    }
    return list;
  };
  /**
   * Data edges carrying node i's activation or input gradient on: not its weight gradients (to
   * data parallelism's reduce and the step), nor to its own block's later ops but for the
   * forward's stash (a split backward's BW reads nothing exchanged).
   */
  const leaving = (i: number) => {
    const list: number[] = [];
    for (let k = adjacency.offset[i]!; k < adjacency.offset[i + 1]!; k++) {
      const j = adjacency.edge[k]!;
      const v = e.to[j]!;
      if (e.kind[j] !== EDGE_DATA || t.op[v] === OP_UPD || passOf(t, v) === 'replicate') continue;
      if (t.op[v]! <= OP_UPD && t.block[v] === t.block[i] && t.op[i] !== OP_F) continue;
      list.push(j);
    }
    return list;
  };
  // Tensor parallelism splits the heads: each member exchanges its own heads' K/V among its cp peers.
  const heads = new Map<number, number>();
  for (const tp of dag.tensorParallel ?? [])
    if (tp.group === r.group) for (const b of tp.blocks) heads.set(b, tensorParallelDegree(dag, tp));
  // Under the ring the forward's output is whole once its ring has merged every chunk in: an
  // exchange reading it waits for that ring too.
  const ringOf = new Map<number, number>();
  const readers: [number, number][] = [];
  for (const i of ops) {
    const block = dag.blocks[t.block[i]!]!;
    const whole = block.kvBytes ?? (synthetic ? block.outputBytes : undefined);
    if (whole === undefined) continue;
    const kv = whole / (heads.get(t.block[i]!) ?? 1);
    const op = t.op[i]!;
    if (op === OP_F || op === OP_B || op === OP_BI)
      held.set(i, exchangeBuffers(form, r.degree, kv, op === OP_F));
    if (op === OP_F) {
      const x = add(OP_ALL_GATHER, 'ALL_GATHER', i, kv);
      for (const u of inputs(i)) edges.push(u, x, 0);
      if (form === 'all_gather') edges.push(x, i, kv);
      else {
        for (const j of leaving(i)) edges.push(x, e.to[j]!, 0);
        ringOf.set(i, x);
        for (const u of inputs(i)) readers.push([u, x]);
      }
      continue;
    }
    if (op !== OP_B && op !== OP_BI) continue;
    const gather = add(OP_ALL_GATHER, 'ALL_GATHER', i, kv);
    const scatter = add(OP_REDUCE_SCATTER, 'REDUCE_SCATTER', i, kv);
    for (const u of inputs(i)) edges.push(u, gather, 0);
    if (form === 'all_gather') {
      edges.push(gather, i, kv);
      edges.push(i, scatter, kv);
      // The input gradient leaves once the K/V gradients of the other members are summed in.
      for (const j of leaving(i)) edges.from[j] = scatter;
    } else {
      for (const u of inputs(i)) edges.push(u, scatter, 0);
      for (const j of leaving(i)) {
        edges.push(gather, e.to[j]!, 0);
        edges.push(scatter, e.to[j]!, 0);
      }
    }
  }
  for (const [u, x] of readers) {
    const ring = ringOf.get(u);
    if (ring !== undefined) edges.push(ring, x, 0);
  }
}

/**
 * What an attention op holds beside its own K/V while it runs, for K/V of `kv` bytes (the whole
 * sequence's, this member's heads) over cp members:
 * - all_gather (Llama 3 §3.3.2): the other members' K/V, (cp−1)/cp of kv, gathered before the
 *   forward; the backward gathers them again and makes their gradients, twice that;
 * - ring: the chunk received and the one arriving (a double buffer, 2 · kv/cp; one chunk at cp = 2)
 *   in the forward; in the backward the same for K/V and for their gradients passed on around the
 *   ring.
 */
export function exchangeBuffers(
  form: 'ring' | 'all_gather',
  cp: number,
  kv: number,
  forward: boolean,
): number {
  const passes = forward ? 1 : 2;
  return form === 'all_gather' ? (passes * kv * (cp - 1)) / cp : (passes * Math.min(2, cp - 1) * kv) / cp;
}

/**
 * Each member's 1/cp of the sequence: the memory effects of the region's compute ops, the bytes of
 * the sends and activation collectives of its blocks and of the data edges between them.
 */
function divideSequenceTraffic(
  { t, edges }: DagRewrite<'shard_sequence'>,
  degree: ReadonlyMap<string, number>,
  out: OwnTable,
): void {
  const nOf = (i: number) => degree.get(`${t.group[i]}:${t.block[i]}`);
  const scaled = new Set<number>();
  for (let i = 0; i < t.length; i++) {
    const n = nOf(i);
    if (n === undefined || n === 1) continue;
    const op = t.op[i]!;
    if (op <= OP_UPD) {
      out.alloc[i] = t.alloc[i]! / n;
      out.free[i] = t.free[i]! / n;
      scaled.add(i);
    } else if (op <= OP_RECV || ACTIVATION_PASSES.has(passOf(t, i))) {
      out.bytes[i] = t.bytes[i]! / n;
      scaled.add(i);
    }
  }
  const count = edges.list().from.length;
  for (let j = 0; j < count; j++) {
    const u = edges.from[j]!;
    const v = edges.to[j]!;
    if (scaled.has(u) && (scaled.has(v) || t.op[v]! <= OP_RECV))
      edges.bytes[j] = edges.bytes[j]! / degree.get(`${t.group[u]}:${t.block[u]}`)!;
  }
}

function passOf(t: NodeTable, i: number): string {
  return t.names[t.provPass[i]!] ?? '';
}

/** Block b as each of n members holds it: 1/n of the sequence, the parameters whole. */
function divided(b: BlockInfo, n: number): BlockInfo {
  const out: BlockInfo = {
    ...b,
    activationBytes: b.activationBytes / n,
    outputBytes: b.outputBytes / n,
  };
  if (b.tokens !== undefined) out.tokens = b.tokens / n;
  if (b.ms)
    out.ms = { F: b.ms.F / n, BI: b.ms.BI / n, BW: b.ms.BW / n, FandB: b.ms.FandB / n, UPD: b.ms.UPD };
  if (b.flops) out.flops = { F: b.flops.F / n, BI: b.flops.BI / n, BW: b.flops.BW / n };
  if (b.kernels) {
    out.kernels = { ...b.kernels, gemms: b.kernels.gemms.map((g) => ({ ...g, m: g.m / n })) };
    const w = b.kernels.elementwiseBytes;
    // Every elementwise kernel runs over the member's own tokens.
    if (w !== undefined) {
      const over = (p: typeof w.split) => ({ F: p.F / n, BI: p.BI / n, BW: p.BW / n });
      out.kernels.elementwiseBytes = { sequence: over(w.sequence), split: over(w.split) };
    }
    // Each member's attention runs over its own 1/cp of the queries.
    if (b.kernels.attentionSeqLen !== undefined) out.kernels.attentionSeqLen = b.kernels.attentionSeqLen / n;
  }
  if (b.recomputeActivationBytes !== undefined) out.recomputeActivationBytes = b.recomputeActivationBytes / n;
  if (b.sequenceActivationBytes !== undefined) out.sequenceActivationBytes = b.sequenceActivationBytes / n;
  return out;
}
