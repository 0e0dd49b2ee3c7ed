/**
 * `replicate` (Piper): data parallelism of a region over its device group. Every member holds the
 * region's parameters and runs its own data; gradients are synchronised per bucket:
 * - plain: one ALL_REDUCE per bucket once every microbatch's weight gradient of the bucket is ready;
 * - ZeRO-1 (`shard_optimizer`, Stagecraft's own field): REDUCE_SCATTER per bucket after the last
 *   microbatch, each member steps its 1/n of the optimizer states, then ALL_GATHER of the updated
 *   parameters after UPD (Megatron's distributed optimizer, DeepSpeed stage 1);
 * - ZeRO-2 (`shard_grads`): REDUCE_SCATTER per bucket after every microbatch, so only a 1/n
 *   gradient shard is kept between microbatches, and the ALL_GATHER after UPD;
 * - ZeRO-3 (`shard_params`): as ZeRO-2, and parameters are sharded too: ALL_GATHER of a block's
 *   parameters before each of its F and again before each B/BI (resharded in between, so the
 *   gathered copy lives only while the op runs); no ALL_GATHER after UPD.
 * Collectives run on `reduce_stream` / `gather_stream` (Piper's default: the compute stream).
 * Blocks a `shard` directive covers on the same group are expert parallel, not replicated, and
 * are left out (as Piper does). Over mesh axes (`axis`, design format @3) each collective runs over
 * the sub-groups along them; an expert block sharded over `ep` and replicated over `dp` and `ep`
 * is replicated over `dp` alone (DeepSeek-V3's experts: EP within, DP across). The ZeRO stage of each block is recorded in `dag.dataParallel`
 * for the memory model.
 */
import {
  type CollectiveOp,
  CompileError,
  type Dag,
  type DataParallelRegion,
  deviceCount,
  EDGE_DATA,
  formatPath,
  type NodeTable,
  nodeIdOf,
  OP_B,
  OP_BI,
  OP_BW,
  OP_F,
  OP_UPD,
  opCode,
  subgroupSize,
  tableOf,
} from '@stagecraft/ir';
import { inEdges } from '../dag/adjacency.ts';
import { EdgeColumns } from '../dag/edgeColumns.ts';
import { RowAppend } from '../dag/rowAppend.ts';
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { DEFAULT_COMM_STREAM, directivesOf } from '../program/program.ts';
import { dimsSuffix, familyOf, nodeFamily, regionsOf } from '../program/region.ts';

/** Adds a collective of the region's group and directive; returns its node index. */
type AddCollective = (
  op: CollectiveOp,
  id: string,
  block: number,
  /** The node whose split indices it takes (−1: none). */
  like: number,
  stream: string,
  bytes: number,
) => number;

const byGroupCache = new WeakMap<Dag, number[][]>();
/** Compute nodes of each group, built once per DAG (programs replicate every group). */
function computeOnGroup(dag: Dag, t: NodeTable, group: number): number[] {
  let all = byGroupCache.get(dag);
  if (!all) {
    all = dag.groups.map(() => []);
    for (let i = 0; i < t.length; i++) if (t.op[i]! <= OP_UPD && t.group[i]! >= 0) all[t.group[i]!]!.push(i);
    byGroupCache.set(dag, all);
  }
  return all[group] ?? [];
}

export const replicatePass: Pass = {
  name: 'replicate',
  // The shard directives too: expert blocks are left out of data parallelism; and shard_tensor's,
  // which divide a block's parameters among the members of a tensor-parallel sub-group; and
  // shard_sequence's, whose members' gradients are reduced with data parallelism's.
  reads: ['replicate', 'shard', 'shard_tensor', 'shard_sequence'],
  writes: [],
  run(dag, ctx) {
    const reps = directivesOf(ctx.program, 'replicate');
    const sequences = directivesOf(ctx.program, 'shard_sequence');
    if (reps.length === 0 && sequences.length === 0) return dag;
    const index = new NodeIndex(dag);
    const devices = deviceCount(ctx.design.cluster);
    const shares = blockShares(dag, ctx, index, devices);
    const rewrite = new DataParallelRewrite(dag, shares);
    for (const { d, index: di, path } of reps)
      for (const r of regionsOf(dag, index, d, path, devices)) {
        const group = r.group;
        const members = dag.groups[group]!;
        const mesh = dag.meshes?.[group];
        const full = fullMask(dag, group);
        let p = 0;
        const parts = replicatedParts(r.blocks, r.mask ?? full, group, shares.sharded, shares.sequence);
        for (const [eff, blocks] of parts) {
          const mask = eff === full ? null : eff;
          const n = mask === null || !mesh ? members.length : subgroupSize(mesh, mask);
          const tag = p === 0 ? `d${members[0]}` : `d${members[0]}.p${p}`;
          rewrite.region({ d, di, path, group, blocks, mask, n, tag });
          p++;
        }
      }
    // Context parallelism without data parallelism still sums its members' gradients.
    for (const { d, index: di, path } of sequences)
      for (const r of regionsOf(dag, index, d, path, devices)) {
        const blocks = r.blocks.filter((b) => !rewrite.covers(r.group, b));
        if (blocks.length === 0) continue;
        const members = dag.groups[r.group]!;
        const plain: ReplicatedPart['d'] = { op: 'replicate', filter: d.filter };
        const tag = `d${members[0]}.cp`;
        rewrite.region({ d: plain, di, path, group: r.group, blocks, mask: r.mask, n: r.degree, tag });
      }
    return rewrite.result(ctx);
  },
};

/** Every mesh axis of a group's mesh (a flat group has one). */
function fullMask(dag: Dag, g: number): number {
  const mesh = dag.meshes?.[g];
  return mesh ? (1 << mesh.axes.length) - 1 : 1;
}

/** What the shard directives leave of each block, keyed `group:block`. */
interface BlockShares {
  /**
   * Expert-parallel blocks per group, with the mesh axes they are sharded over: not replicated
   * over those (over a flat group, or the whole mesh, not replicated at all).
   */
  readonly sharded: ReadonlyMap<string, number>;
  /**
   * shard and shard_tensor run after this pass: each member will hold 1/n of a block they divide
   * (its experts, its tensor slice), and its gradients and parameters move in those shares.
   */
  readonly share: ReadonlyMap<string, number>;
  /**
   * Blocks whose sequence shard_sequence splits, with its mesh axes: their members' gradients are
   * partial sums too, reduced in the same collective (one reduce over dp × cp).
   */
  readonly sequence: ReadonlyMap<string, number>;
}

function blockShares(dag: Dag, ctx: PassContext, index: NodeIndex, devices: number): BlockShares {
  const sharded = new Map<string, number>();
  const share = new Map<string, number>();
  const sequence = new Map<string, number>();
  for (const { d, path } of directivesOf(ctx.program, 'shard_sequence'))
    for (const r of regionsOf(dag, index, d, path, devices))
      for (const b of r.blocks) sequence.set(`${r.group}:${b}`, r.mask ?? fullMask(dag, r.group));
  for (const { d, path } of directivesOf(ctx.program, 'shard'))
    for (const r of regionsOf(dag, index, d, path, devices))
      for (const b of r.blocks) {
        sharded.set(`${r.group}:${b}`, r.mask ?? fullMask(dag, r.group));
        share.set(`${r.group}:${b}`, r.degree);
      }
  for (const { d, path } of directivesOf(ctx.program, 'shard_tensor'))
    for (const r of regionsOf(dag, index, d, path, devices))
      for (const b of r.blocks) share.set(`${r.group}:${b}`, (share.get(`${r.group}:${b}`) ?? 1) * r.degree);
  return { sharded, share, sequence };
}

/** A region's blocks by the axes they are replicated over: the directive's, less those they are sharded over. */
function replicatedParts(
  blocks: readonly number[],
  repMask: number,
  group: number,
  sharded: ReadonlyMap<string, number>,
  sequence: ReadonlyMap<string, number>,
): Map<number, number[]> {
  const parts = new Map<number, number[]>();
  for (const b of blocks) {
    const k = `${group}:${b}`;
    const eff = (repMask | (sequence.get(k) ?? 0)) & ~(sharded.get(k) ?? 0);
    if (eff === 0) continue;
    let l = parts.get(eff);
    if (!l) parts.set(eff, (l = []));
    l.push(b);
  }
  if (parts.size === 0) parts.set(repMask, []);
  return parts;
}

type ReplicateDirective = ReturnType<typeof directivesOf<'replicate'>>[number];

/** One replicated part of a region: its blocks over `n` members (a sub-group along `mask`, or the group). */
interface ReplicatedPart {
  d: ReplicateDirective['d'];
  di: number;
  path: ReplicateDirective['path'];
  group: number;
  blocks: number[];
  mask: number | null;
  n: number;
  /** Names this part's collectives apart from the region's other parts. */
  tag: string;
}

/**
 * The rewrite of one DAG: the collectives each replicated part adds, their edges, and the data
 * parallel regions the memory model reads.
 */
class DataParallelRewrite {
  private readonly t: NodeTable;
  private readonly rows: RowAppend;
  private readonly edges: EdgeColumns;
  private readonly inc: { offset: Int32Array; edge: Int32Array };
  private readonly regions: DataParallelRegion[];
  /** ZeRO-3's gathered parameters, added to the memory effects of the ops that use them. */
  private readonly gatheredBytes = new Map<number, number>();
  private readonly subgroups: Map<number, number>;
  /** The UPD node of each group. */
  private readonly updOf = new Map<number, number>();
  /** Which directive already replicates each `group:block`. */
  private readonly covered = new Map<string, string>();

  constructor(
    private readonly dag: Dag,
    private readonly shares: BlockShares,
  ) {
    const t = tableOf(dag);
    this.t = t;
    this.rows = new RowAppend(t, 'replicate');
    this.edges = new EdgeColumns(dag.edges);
    this.inc = inEdges(t.length, dag.edges);
    this.regions = [...(dag.dataParallel ?? [])];
    this.subgroups = new Map(dag.subgroups ?? []);
    for (let i = 0; i < t.length; i++) if (t.op[i] === OP_UPD) this.updOf.set(t.group[i]!, i);
  }

  private paramBytesOn(group: number, b: number): number {
    return this.dag.blocks[b]!.paramBytes / (this.shares.share.get(`${group}:${b}`) ?? 1);
  }

  region(part: ReplicatedPart): void {
    const { d, di, group, blocks, mask, n, tag } = part;
    const zero: 0 | 1 | 2 | 3 = d.shard_params ? 3 : d.shard_grads ? 2 : d.shard_optimizer ? 1 : 0;
    this.claim(part);
    this.regions.push(
      mask === null
        ? { group, blocks, zero, directive: di }
        : { group, blocks, zero, directive: di, degree: n, mask },
    );
    if (n === 1 || blocks.length === 0) return;
    const reduceStream = d.reduce_stream ?? DEFAULT_COMM_STREAM;
    const gatherStream = d.gather_stream ?? reduceStream;
    const { grads, users } = this.gradientOps(group, blocks);
    const add: AddCollective = (op, id, block, like, stream, bytes) => {
      const v = this.rows.add({ op: opCode(op), like, block, group, stream, directive: di, bytes, id });
      if (mask !== null) this.subgroups.set(v, mask);
      return v;
    };
    this.buckets(group, blocks, zero < 3 ? d.bucket_size : undefined).forEach((bucket, k) => {
      const ops = bucket.flatMap((b) => grads.get(b) ?? []);
      if (ops.length === 0) return;
      const bytes = bucket.reduce((s, b) => s + this.paramBytesOn(group, b), 0);
      const sync = { bucket, k, ops, bytes, zero, tag, reduceStream, gatherStream };
      this.synchronise(sync, add, this.updOf.get(group));
    });
    if (zero === 3)
      gatherBeforeUse(
        this.dag,
        this.t,
        this.edges,
        this.inc,
        users,
        add,
        gatherStream,
        n,
        this.gatheredBytes,
        (b) => this.paramBytesOn(group, b),
      );
  }

  /** Whether a directive already replicates block b on the group. */
  covers(group: number, b: number): boolean {
    return this.covered.has(`${group}:${b}`);
  }

  /** Records which directive replicates each block of the part; a block replicated twice is refused. */
  private claim({ path, group, blocks }: ReplicatedPart): void {
    const members = this.dag.groups[group]!;
    for (const b of blocks) {
      const k = `${group}:${b}`;
      const prev = this.covered.get(k);
      if (prev)
        throw new CompileError({
          path: formatPath([...path, 'filter']),
          message: `block ${b} (${this.dag.blocks[b]!.name}) on devices [${members.join(', ')}] is already replicated by ${prev}`,
        });
      this.covered.set(k, formatPath(path));
    }
  }

  /**
   * Weight-gradient ops (B or BW) of the blocks on this group, per block; and the F and B/BI that
   * need full parameters (ZeRO-3).
   */
  private gradientOps(
    group: number,
    blocks: readonly number[],
  ): { grads: Map<number, number[]>; users: number[] } {
    const t = this.t;
    const blockSet = new Set(blocks);
    const grads = new Map<number, number[]>();
    const users: number[] = [];
    for (const i of computeOnGroup(this.dag, t, group)) {
      const block = t.block[i]!;
      if (!blockSet.has(block)) continue;
      const op = t.op[i]!;
      if (op === OP_B || op === OP_BW) {
        let l = grads.get(block);
        if (!l) grads.set(block, (l = []));
        l.push(i);
      }
      if (op === OP_F || op === OP_B || op === OP_BI) users.push(i);
    }
    return { grads, users };
  }

  /**
   * Buckets in backward order (last block first), filled up to `bucketSize` bytes of gradients.
   * ZeRO-3 passes none and keeps one block per bucket: its gradients must come back sharded in
   * the layout of the block's own all-gathers (plan-format.md), or no member could gather its
   * chunk again.
   */
  private buckets(group: number, blocks: readonly number[], bucketSize: number | undefined): number[][] {
    const buckets: number[][] = [];
    let fill = 0;
    for (const b of [...blocks].reverse()) {
      const bytes = this.paramBytesOn(group, b);
      const last = buckets[buckets.length - 1];
      if (bucketSize !== undefined && last && fill + bytes <= bucketSize) {
        last.push(b);
        fill += bytes;
      } else {
        buckets.push([b]);
        fill = bytes;
      }
    }
    return buckets;
  }

  /** One bucket's gradient synchronisation, before the group's UPD, and ZeRO-1/2's gather after it. */
  private synchronise(
    s: {
      bucket: number[];
      k: number;
      ops: number[];
      bytes: number;
      zero: 0 | 1 | 2 | 3;
      tag: string;
      reduceStream: string;
      gatherStream: string;
    },
    add: AddCollective,
    upd: number | undefined,
  ): void {
    const { bucket, k, ops, bytes, zero, tag } = s;
    const { t, edges } = this;
    const after: number[] = [];
    if (zero <= 1) {
      const op: CollectiveOp = zero === 0 ? 'ALL_REDUCE' : 'REDUCE_SCATTER';
      const v = add(op, `${op}.grads.${tag}.k${k}`, bucket[0]!, -1, s.reduceStream, bytes);
      for (const u of ops) edges.push(u, v);
      after.push(v);
    } else {
      // One reduce-scatter per microbatch: gradients stay sharded between microbatches.
      const perMb = new Map<string, number[]>();
      for (const u of ops) {
        const key = t.dims.map((c) => c[u]).join(',');
        let l = perMb.get(key);
        if (!l) perMb.set(key, (l = []));
        l.push(u);
      }
      for (const list of perMb.values()) {
        const like = list[0]!;
        const id = `REDUCE_SCATTER.grads.${tag}.k${k}${dimsSuffix(this.dag, t, like)}`;
        const v = add('REDUCE_SCATTER', id, bucket[0]!, like, s.reduceStream, bytes);
        for (const u of list) edges.push(u, v);
        after.push(v);
      }
    }
    if (upd === undefined) return;
    for (const v of after) edges.push(v, upd);
    if (zero === 1 || zero === 2) {
      const ag = add('ALL_GATHER', `ALL_GATHER.params.${tag}.k${k}`, bucket[0]!, -1, s.gatherStream, bytes);
      edges.push(upd, ag);
    }
  }

  /** The rewritten DAG: the added collectives, their edges, and ZeRO-3's gathered bytes on their users. */
  result(ctx: PassContext): Dag {
    const out = this.rows.table(this.gatheredBytes.size > 0 ? ['alloc', 'free'] : []);
    for (const [i, g] of this.gatheredBytes) {
      out.alloc[i]! += g;
      out.free[i]! += g;
    }
    const { dag, edges, regions, subgroups } = this;
    return rewritten(
      dag,
      ctx,
      subgroups.size > 0
        ? { edges: edges.list(), dataParallel: regions, subgroups }
        : { edges: edges.list(), dataParallel: regions },
      out,
    );
  }
}

/**
 * ZeRO-3: an ALL_GATHER of the block's parameters before each F and B/BI. It is issued when the
 * op before it in the same pass on this group becomes runnable (FSDP's one-ahead prefetch), and
 * the gathered (n−1)/n of the parameters is allocated with the op and released when it ends.
 */
function gatherBeforeUse(
  dag: Dag,
  t: NodeTable,
  edges: EdgeColumns,
  inc: { offset: Int32Array; edge: Int32Array },
  users: number[],
  add: AddCollective,
  stream: string,
  n: number,
  gatheredBytes: Map<number, number>,
  paramBytes: (block: number) => number,
): void {
  const e = dag.edges;
  const sameFamilyInputs = (i: number): number[] => {
    const fam = familyOf(t.op[i]!);
    const out: number[] = [];
    for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
      const j = inc.edge[k]!;
      if (e.kind[j] !== EDGE_DATA) continue;
      const u = e.from[j]!;
      if (t.group[u] !== t.group[i]) continue;
      if (nodeFamily(t, u) === fam) out.push(u);
    }
    return out;
  };
  for (const i of users) {
    const full = paramBytes(t.block[i]!);
    const v = add('ALL_GATHER', `ALL_GATHER.${nodeIdOf(dag, i)}`, t.block[i]!, i, stream, full);
    // Prefetch: wait for what the previous op of the chain waits for, else for this op's own inputs.
    const preds = sameFamilyInputs(i);
    const chain = preds.find((u) => t.op[u]! <= OP_UPD);
    for (const u of chain !== undefined ? sameFamilyInputs(chain) : preds) edges.push(u, v);
    edges.push(v, i);
    gatheredBytes.set(i, (gatheredBytes.get(i) ?? 0) + (full * (n - 1)) / n);
  }
}
