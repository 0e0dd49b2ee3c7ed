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
 */
import {
  type BlockInfo,
  CompileError,
  EDGE_DATA,
  formatPath,
  nodeIdOf,
  OP_ALL_REDUCE,
  OP_UPD,
} from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { familyOf, nodeFamily } from '../program/region.ts';
import { regionDirectives } from '../program/regionDirectives.ts';
import { DagRewrite } from './dagRewrite.ts';

export const shardTensorPass: Pass = {
  name: 'shard-tensor',
  reads: ['shard_tensor'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'shard_tensor', 'shard-tensor');
    if (rewrite === undefined) return dag;
    const { t, rows, edges, directives: list } = rewrite;
    const blocks: BlockInfo[] = dag.blocks.slice();
    const degree = new Map<number, number>();
    const e = dag.edges;
    const tensorParallel = [...(dag.tensorParallel ?? [])];
    const subgroups = new Map(dag.subgroups ?? []);
    for (const { region: r, members, ops: inRegion, provenance, stream, path } of regionDirectives(
      dag,
      ctx,
      list,
      'shard-tensor',
    )) {
      tensorParallel.push(
        r.mask === null
          ? { group: r.group, blocks: r.blocks }
          : { group: r.group, blocks: r.blocks, mask: r.mask },
      );
      const n = r.degree;
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
      for (const b of r.blocks) {
        if (degree.has(b))
          throw new CompileError({
            path: formatPath([...path, 'filter']),
            message: `block ${b} (${dag.blocks[b]!.name}) is already tensor parallel`,
          });
        degree.set(b, n);
        blocks[b] = divided(dag.blocks[b]!, n);
      }
      if (n === 1) continue;
      const arOf = new Map<number, number>();
      const count = e.from.length;
      for (let j = 0; j < count; j++) {
        if (e.kind[j] !== EDGE_DATA) continue;
        const u = edges.from[j]!;
        const v = edges.to[j]!;
        // u is in the region (a node of the input); v the input's too (`to` never changes).
        if (!inRegion.has(u)) continue;
        if (t.group[v] !== r.group || (t.op[v]! <= OP_UPD && t.block[v] === t.block[u])) continue;
        if (familyOf(t.op[u]!) !== nodeFamily(t, v)) continue;
        let a = arOf.get(u);
        if (a === undefined) {
          a = rows.add({
            op: OP_ALL_REDUCE,
            like: u,
            group: r.group,
            stream,
            directive: provenance.directive ?? -1,
            bytes: e.bytes[j]!,
            id: `ALL_REDUCE.tp.${nodeIdOf(dag, u)}`,
          });
          arOf.set(u, a);
          if (r.mask !== null) subgroups.set(a, r.mask);
          edges.push(u, a, e.bytes[j]!);
        }
        edges.from[j] = a;
      }
    }
    const out = rows.table(degree.size > 0 ? ['alloc', 'free'] : []);
    // Each member computes 1/n of a block: its ops' memory effects too.
    if (degree.size > 0)
      for (let i = 0; i < t.length; i++) {
        const n = t.op[i]! <= OP_UPD ? degree.get(t.block[i]!) : undefined;
        if (n === undefined || n === 1) continue;
        out.alloc[i] = t.alloc[i]! / n;
        out.free[i] = t.free[i]! / n;
      }
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

function divided(b: BlockInfo, n: number): BlockInfo {
  const out: BlockInfo = {
    ...b,
    activationBytes: b.activationBytes / n,
    paramBytes: b.paramBytes / n,
  };
  if (b.ms)
    out.ms = { F: b.ms.F / n, BI: b.ms.BI / n, BW: b.ms.BW / n, FandB: b.ms.FandB / n, UPD: b.ms.UPD / n };
  if (b.flops) out.flops = { F: b.flops.F / n, BI: b.flops.BI / n, BW: b.flops.BW / n };
  if (b.kernels)
    out.kernels = {
      ...b.kernels,
      gemms: b.kernels.gemms.map((g) => (g.split === 'n' ? { ...g, n: g.n / n } : { ...g, k: g.k / n })),
    };
  if (b.recomputeActivationBytes !== undefined) out.recomputeActivationBytes = b.recomputeActivationBytes / n;
  return out;
}
