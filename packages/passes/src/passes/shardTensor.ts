/**
 * `shard_tensor`: tensor parallelism (Megatron-style) of a region over its device group. Every
 * member computes 1/n of each block (its costs, parameters and stashed activations are divided by
 * n) and the block's output is summed across members: an ALL_REDUCE on every forward edge leaving
 * a block of the region and on every backward edge leaving it (the gradient of its input). Each
 * block is its own unit, as Megatron all-reduces after both attention and MLP. A group is either
 * tensor parallel or data parallel: a block `replicate` already covers on the group is an error.
 */
import {
  type BlockInfo,
  CompileError,
  type ComputeNode,
  collectiveNode,
  type DagNode,
  EDGE_DATA,
  formatPath,
  patchCompute,
} from '@stagecraft/ir';
import { deviceCount } from '../cluster.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { EdgeColumns } from './edgeColumns.ts';
import { familyOf, regionOf } from './region.ts';
import { DEFAULT_COMM_STREAM } from './replicate.ts';

export const shardTensorPass: Pass = {
  name: 'shard-tensor',
  run(dag, ctx) {
    const list = directivesOf(ctx.program, 'shard_tensor');
    if (list.length === 0) return dag;
    const index = new NodeIndex(dag);
    const devices = deviceCount(ctx.design.cluster);
    let nodes: DagNode[] = dag.nodes.slice();
    const edges = new EdgeColumns(dag.edges);
    const blocks: BlockInfo[] = dag.blocks.slice();
    const degree = new Map<number, number>();
    const e = dag.edges;
    const tensorParallel = [...(dag.tensorParallel ?? [])];
    for (const { d, index: di, path } of list) {
      const r = regionOf(dag, index, d, path, devices);
      tensorParallel.push({ group: r.group, blocks: r.blocks });
      const members = dag.groups[r.group]!;
      const n = members.length;
      for (const dp of dag.dataParallel ?? []) {
        if (dp.group !== r.group) continue;
        const b = r.blocks.find((x) => dp.blocks.includes(x));
        if (b !== undefined)
          throw new CompileError({
            path: formatPath([...path, 'filter']),
            message: `block ${b} (${dag.blocks[b]!.name}) on devices [${members.join(', ')}] is data parallel by ${formatPath(ctx.program[dp.directive]!.path)}; shard_tensor and replicate cannot cover the same region of one group`,
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
      const inRegion = new Set(r.nodes.filter((i) => familyOf((dag.nodes[i] as ComputeNode).op) !== null));
      const provenance = { pass: 'shard-tensor', directive: di };
      const stream = d.stream ?? DEFAULT_COMM_STREAM;
      const arOf = new Map<number, number>();
      const count = e.from.length;
      for (let j = 0; j < count; j++) {
        if (e.kind[j] !== EDGE_DATA) continue;
        const u = edges.from[j]!;
        const v = edges.to[j]!;
        if (!inRegion.has(u)) continue;
        const nu = nodes[u] as ComputeNode;
        const nv = nodes[v]!;
        if (nv.group !== r.group || (nv.kind === 'compute' && nv.block === nu.block)) continue;
        const fam = familyOf(nu.op);
        const fv = nv.kind === 'compute' ? familyOf(nv.op) : nv.kind === 'p2p' ? familyOf(nv.pass) : null;
        if (fam !== fv) continue;
        let a = arOf.get(u);
        if (a === undefined) {
          a = nodes.length;
          nodes.push(
            collectiveNode({
              op: 'ALL_REDUCE',
              id: `ALL_REDUCE.tp.${nu.id}`,
              block: nu.block,
              dims: nu.dims,
              group: r.group,
              stream,
              provenance,
              devices: members,
              bytes: e.bytes[j]!,
            }),
          );
          arOf.set(u, a);
          edges.push(u, a, e.bytes[j]!);
        }
        edges.from[j] = a;
      }
    }
    if (degree.size > 0) {
      nodes = nodes.map((x) => {
        const n = x.kind === 'compute' ? degree.get(x.block) : undefined;
        if (n === undefined || x.kind !== 'compute' || n === 1) return x;
        return patchCompute(x, { allocBytes: x.allocBytes / n, freeBytes: x.freeBytes / n });
      });
    }
    return { ...dag, nodes, blocks, edges: edges.list(), tensorParallel };
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
  if (b.recomputeActivationBytes !== undefined) out.recomputeActivationBytes = b.recomputeActivationBytes / n;
  return out;
}
