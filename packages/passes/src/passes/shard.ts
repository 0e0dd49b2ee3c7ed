/**
 * `shard` (Piper): expert parallelism of a region over its device group. Each member holds
 * experts/n of the region's experts (its parameters are divided by n) and keeps its own tokens;
 * every data edge entering the region gets an ALL_TO_ALL dispatch and every edge leaving it an
 * ALL_TO_ALL combine, in the forward and mirrored in the backward (the gradient of a combine is a
 * dispatch and vice versa). Weight gradients (BW) stay local. A transfer carries the edge's bytes
 * times the block's top-k (each token goes to k experts). The degree n must divide the experts.
 */
import {
  type BlockInfo,
  CompileError,
  type ComputeNode,
  collectiveNode,
  type DagNode,
  EDGE_DATA,
  formatPath,
} from '@stagecraft/ir';
import { inEdges, outEdges } from '../adjacency.ts';
import { deviceCount } from '../cluster.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { EdgeColumns } from './edgeColumns.ts';
import { familyOf, regionOf } from './region.ts';
import { DEFAULT_COMM_STREAM } from './replicate.ts';

export const shardPass: Pass = {
  name: 'shard',
  run(dag, ctx) {
    const shards = directivesOf(ctx.program, 'shard');
    if (shards.length === 0) return dag;
    const index = new NodeIndex(dag);
    const devices = deviceCount(ctx.design.cluster);
    const nodes: DagNode[] = dag.nodes.slice();
    const edges = new EdgeColumns(dag.edges);
    const blocks: BlockInfo[] = dag.blocks.slice();
    const scaled = new Map<number, number>();
    const e = dag.edges;
    const inc = inEdges(dag.nodes.length, e);
    const out = outEdges(dag.nodes.length, e);
    for (const { d, index: di, path } of shards) {
      const r = regionOf(dag, index, d, path, devices);
      const members = dag.groups[r.group]!;
      const n = members.length;
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
          blocks[b] = { ...info, paramBytes: info.paramBytes / n };
        }
      }
      if (n === 1) continue;
      const inRegion = new Set(r.nodes.filter((i) => familyOf((dag.nodes[i] as ComputeNode).op) !== null));
      const provenance = { pass: 'shard', directive: di };
      const stream = d.stream ?? DEFAULT_COMM_STREAM;
      // One ALL_TO_ALL per producer tensor crossing the boundary.
      const a2aOf = new Map<number, number>();
      const famOf = (x: DagNode) =>
        x.kind === 'compute' ? familyOf(x.op) : x.kind === 'p2p' ? familyOf(x.pass) : null;
      // Only edges incident to the region can cross its boundary: visit those (CSR of the input DAG;
      // `to` never changes, `from` may have been moved onto an earlier region's all-to-all).
      const visit = (j: number) => {
        if (e.kind[j] !== EDGE_DATA) return;
        const u = edges.from[j]!;
        const v = edges.to[j]!;
        const mu = inRegion.has(u);
        const mv = inRegion.has(v);
        if (mu === mv) return;
        const nu = nodes[u]!;
        const nv = nodes[v]!;
        if (nu.group !== r.group || nv.group !== r.group) return;
        const fam = famOf(nu);
        if (fam === null || fam !== famOf(nv)) return;
        let a = a2aOf.get(u);
        if (a === undefined) {
          const inside = mu ? nu : nv;
          // Forward: dispatch into the region, combine out of it; the backward mirrors them.
          const what = fam === 'F' ? (mv ? 'dispatch' : 'combine') : mv ? 'combine-grad' : 'dispatch-grad';
          const topK = dag.blocks[inside.block]?.topK ?? 1;
          a = nodes.length;
          nodes.push(
            collectiveNode({
              op: 'ALL_TO_ALL',
              id: `ALL_TO_ALL.${what}.${nu.id}`,
              block: inside.block,
              dims: inside.dims,
              group: r.group,
              stream,
              provenance,
              devices: members,
              bytes: e.bytes[j]! * topK,
            }),
          );
          a2aOf.set(u, a);
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
    return { ...dag, nodes, blocks, edges: edges.list() };
  },
};
