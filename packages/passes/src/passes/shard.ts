/**
 * `shard` (Piper): expert parallelism of a region over its device group. Each member holds
 * experts/n of the region's experts (its parameters are divided by n) and keeps its own tokens;
 * every data edge entering the region gets an ALL_TO_ALL dispatch and every edge leaving it an
 * ALL_TO_ALL combine, in the forward and mirrored in the backward (the gradient of a combine is a
 * dispatch and vice versa). Weight gradients (BW) stay local. A transfer carries the edge's bytes
 * times the block's top-k (each token goes to k experts), or, with `nodes_per_token` M, times
 * min(M, k) (node-limited routing: one copy per node, fanned out there over NVLink), in
 * `dispatch_dtype` for what enters the experts. The degree n must divide the experts. Over a mesh
 * axis (`axis`: "ep"), n is the axis's size and each all-to-all runs among one sub-group.
 * The routed tokens' copies an expert block stashes for its weight gradient are what the dispatch
 * delivered, so they are kept in `dispatch_dtype` too (DeepSeek-V3, arXiv 2412.19437, §3.3.3:
 * the FP8-quantized input of the MoE up-projections is what its backward reads).
 */
import {
  type BlockInfo,
  CompileError,
  type Design,
  DTYPE_BYTES,
  EDGE_DATA,
  formatPath,
  type NodeTable,
  nodeIdOf,
  OP_ALL_TO_ALL,
  OP_F,
  OP_UPD,
  type PathSegment,
  resolveTransformer,
} from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { nodeFamily } from '../program/region.ts';
import { regionDirectives } from '../program/regionDirectives.ts';
import { DagRewrite } from './dagRewrite.ts';

export const shardPass: Pass = {
  name: 'shard',
  reads: ['shard'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'shard', 'shard');
    if (rewrite === undefined) return dag;
    const { t, rows, edges, inc, out, directives: shards } = rewrite;
    const blocks: BlockInfo[] = dag.blocks.slice();
    const scaled = new Map<number, number>();
    const e = dag.edges;
    // Group and family of a node, or of an all-to-all this pass added (its region's).
    const groupOf = (i: number) => (i < t.length ? t.group[i]! : addedGroup[i - t.length]!);
    const familyOfNode = (i: number) => (i < t.length ? nodeFamily(t, i) : addedFamily[i - t.length]!);
    const addedGroup: number[] = [];
    const addedFamily: ('F' | 'B' | null)[] = [];
    const subgroups = new Map(dag.subgroups ?? []);
    // Per node of an expert block, the stash bytes the dispatch dtype saves.
    const saved = new Map<number, number>();
    const cached = new Set<number>();
    for (const { d, region: r, ops: inRegion, provenance, stream, path } of regionDirectives(
      dag,
      ctx,
      shards,
      'shard',
    )) {
      const n = r.degree;
      for (const b of r.blocks) {
        const info = dag.blocks[b]!;
        if (info.experts !== undefined && info.experts % n !== 0)
          throw new CompileError({
            path: formatPath([...path, 'devices']),
            message: `expert parallelism over ${n} devices does not divide the ${info.experts} experts of block ${b} (${info.name})`,
          });
        const prev = scaled.get(b);
        if (prev !== undefined && prev !== n)
          throw new CompileError({
            path: formatPath([...path, 'devices']),
            message: `block ${b} (${info.name}) is already expert parallel over ${prev} devices`,
          });
        if (prev === undefined) {
          scaled.set(b, n);
          blocks[b] = localExperts({ ...info, paramBytes: info.paramBytes / n }, n);
        }
      }
      if (n === 1) continue;
      const dispatchScale = dispatchBytesScale(ctx.design, d.dispatch_dtype, path);
      if (dispatchScale !== 1)
        cacheDispatched(t, inRegion, { before: dag.blocks, blocks }, dispatchScale, { saved, cached });
      const nodesPerToken = d.nodes_per_token;
      if (nodesPerToken !== undefined)
        for (const b of r.blocks) {
          const info = dag.blocks[b]!;
          if (info.topK === undefined)
            throw new CompileError({
              path: formatPath([...path, 'nodes_per_token']),
              message: `node-limited routing needs routed experts; block ${b} (${info.name}) has no top-k (shard a region of expert blocks, e.g. filter EP: "*")`,
            });
          if (nodesPerToken > info.topK)
            throw new CompileError({
              path: formatPath([...path, 'nodes_per_token']),
              message: `${nodesPerToken} nodes per token exceeds the top-k ${info.topK} of block ${b} (${info.name}): a token reaches at most ${info.topK} nodes`,
            });
        }
      // One ALL_TO_ALL per producer tensor crossing the boundary.
      const a2aOf = new Map<number, number>();
      // Only edges incident to the region can cross its boundary: visit those (CSR of the input DAG;
      // `to` never changes, `from` may have been moved onto an earlier region's all-to-all).
      const visit = (j: number) => {
        if (e.kind[j] !== EDGE_DATA) return;
        const u = edges.from[j]!;
        const v = edges.to[j]!;
        const mu = inRegion.has(u);
        const mv = inRegion.has(v);
        if (mu === mv) return;
        if (groupOf(u) !== r.group || groupOf(v) !== r.group) return;
        const fam = familyOfNode(u);
        if (fam === null || fam !== familyOfNode(v)) return;
        let a = a2aOf.get(u);
        if (a === undefined) {
          const inside = mu ? u : v;
          // Forward: dispatch into the region, combine out of it; the backward mirrors them.
          const what = fam === 'F' ? (mv ? 'dispatch' : 'combine') : mv ? 'combine-grad' : 'dispatch-grad';
          const topK = dag.blocks[t.block[inside]!]?.topK ?? 1;
          // Copies of each token: one per routed expert, or one per node under node-limited routing.
          const copies = nodesPerToken === undefined ? topK : Math.min(nodesPerToken, topK);
          a = rows.add({
            op: OP_ALL_TO_ALL,
            like: inside,
            group: r.group,
            stream,
            directive: provenance.directive ?? -1,
            bytes: e.bytes[j]! * copies * (mv ? dispatchScale : 1),
            // u is a node of the input: an all-to-all added here has no family and stops above.
            id: `ALL_TO_ALL.${what}.${nodeIdOf(dag, u)}`,
          });
          addedGroup.push(r.group);
          addedFamily.push(null);
          a2aOf.set(u, a);
          if (r.mask !== null) subgroups.set(a, r.mask);
          edges.push(u, a, e.bytes[j]!);
        }
        edges.from[j] = a;
      };
      for (const i of inRegion) {
        for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) visit(inc.edge[k]!);
        for (let k = out.offset[i]!; k < out.offset[i + 1]!; k++) {
          const j = out.edge[k]!;
          if (edges.from[j] === i) visit(j);
        }
      }
    }
    const table = rows.table(saved.size > 0 ? ['alloc', 'free'] : []);
    for (const [i, bytes] of saved) {
      if (t.op[i] === OP_F) table.alloc[i] = t.alloc[i]! - bytes;
      else table.free[i] = t.free[i]! - bytes;
    }
    return rewritten(
      dag,
      ctx,
      subgroups.size > 0 ? { blocks, edges: edges.list(), subgroups } : { blocks, edges: edges.list() },
      table,
    );
  },
};

/**
 * The routed tokens' copies of the region's expert blocks, stashed at `scale` of their bytes: the
 * blocks' activation bytes (`cached`: blocks done, as DualPipe's copies put one block on two
 * groups), and per forward (allocating) and freeing backward the bytes saved.
 */
function cacheDispatched(
  t: NodeTable,
  region: ReadonlySet<number>,
  { before, blocks }: { before: readonly BlockInfo[]; blocks: BlockInfo[] },
  scale: number,
  { saved, cached }: { saved: Map<number, number>; cached: Set<number> },
): void {
  for (const i of region) {
    const b = t.block[i]!;
    const copies = before[b]?.dispatchedActivationBytes;
    if (copies === undefined || t.op[i]! > OP_UPD) continue;
    const delta = copies * (1 - scale);
    if (!cached.has(b)) {
      cached.add(b);
      const info = blocks[b]!;
      blocks[b] = {
        ...info,
        activationBytes: info.activationBytes - delta,
        dispatchedActivationBytes: copies * scale,
      };
    }
    if (saved.has(i)) continue;
    if (t.op[i] === OP_F ? t.alloc[i]! >= delta : t.free[i]! >= delta && t.free[i]! > 0) saved.set(i, delta);
  }
}

/** A block of routed experts on one of n members: each local expert's GEMMs see n× the tokens. */
function localExperts(info: BlockInfo, n: number): BlockInfo {
  if (info.experts === undefined || !info.kernels || n === 1) return info;
  const gemms = info.kernels.gemms.map((g) => ({ ...g, m: g.m * n, count: (g.count ?? 1) / n }));
  return { ...info, kernels: { ...info.kernels, gemms } };
}

/**
 * Bytes of an element in `dispatch_dtype` over bytes in the model's dtype (1 without the option).
 * The option needs a transformer model: other models state bytes, not a dtype.
 */
function dispatchBytesScale(design: Design, dtype: string | undefined, path: readonly PathSegment[]): number {
  if (dtype === undefined) return 1;
  const at = formatPath([...path, 'dispatch_dtype']);
  const model = design.model;
  if (model.kind !== 'transformer')
    throw new CompileError({
      path: at,
      message: `a dispatch dtype needs a transformer model (its dtype sizes the tokens); this model is ${model.kind}`,
    });
  const r = resolveTransformer(model);
  if (!r.ok) throw new CompileError(r.errors);
  return DTYPE_BYTES[dtype as keyof typeof DTYPE_BYTES] / DTYPE_BYTES[r.config.dtype];
}
