/**
 * `recompute` (activation checkpointing): the matched forwards keep only their input
 * (`recomputeActivationBytes`, by default the previous block's output) instead of their full
 * stash; a RECOMPUTE op re-runs the forward just before the backward needs it, re-allocating the
 * stash, which the backward frees as before. RECOMPUTE waits for everything else the backward
 * waits for, so it runs late (when the gradient arrives) rather than right after the forward.
 */
import {
  type ComputeNode,
  computeNode,
  type Dag,
  type DagNode,
  EDGE_DATA,
  patchCompute,
} from '@stagecraft/ir';
import { inEdges, outEdges } from '../adjacency.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { EdgeColumns } from './edgeColumns.ts';
import { stashedForwards } from './stashedForwards.ts';

export const recomputePass: Pass = {
  name: 'recompute',
  run(dag, ctx) {
    const list = directivesOf(ctx.program, 'recompute');
    if (list.length === 0) return dag;
    const nodes: DagNode[] = dag.nodes.slice();
    const edges = new EdgeColumns(dag.edges);
    const out = outEdges(dag.nodes.length, dag.edges);
    const inc = inEdges(dag.nodes.length, dag.edges);
    const e = dag.edges;
    for (const { f, provenance } of stashedForwards(dag, list, 'recompute', 'recompute re-runs forwards')) {
      const F = dag.nodes[f] as ComputeNode;
      const block = dag.blocks[F.block]!;
      const keep = block.recomputeActivationBytes ?? dag.blocks[F.block - 1]?.outputBytes ?? 0;
      // The stash edge: F → its own backward (B or BI) of the same block and microbatch.
      let stash = -1;
      for (let k = out.offset[f]!; k < out.offset[f + 1]!; k++) {
        const j = out.edge[k]!;
        const t = dag.nodes[e.to[j]!]!;
        if (
          e.kind[j] === EDGE_DATA &&
          t.kind === 'compute' &&
          (t.op === 'B' || t.op === 'BI') &&
          t.block === F.block
        ) {
          stash = j;
          break;
        }
      }
      if (stash < 0) continue;
      const b = e.to[stash]!;
      const stashed = block.activationBytes;
      // A ZeRO-3 gather before the backward must come before the recompute, which needs the weights too.
      const gather = gatherInto(dag, inc, b);
      const B = nodes[b] as ComputeNode;
      const gathered = gather >= 0 ? Math.max(0, B.allocBytes) : 0;
      const r = nodes.length;
      nodes.push(
        computeNode({
          op: 'RECOMPUTE',
          id: `RECOMPUTE${F.id.slice(1)}`,
          block: F.block,
          dims: F.dims,
          group: F.group,
          stream: F.stream,
          provenance,
          allocBytes: stashed + gathered,
          freeBytes: 0,
        }),
      );
      const cur = nodes[f] as ComputeNode;
      nodes[f] = patchCompute(cur, {
        allocBytes: Math.max(0, cur.allocBytes - stashed) + keep,
        provenance,
      });
      if (gathered > 0) nodes[b] = patchCompute(B, { allocBytes: 0 });
      if (gather >= 0) edges.push(gather, r);
      // Whichever backward frees the stash now frees the kept input too.
      const freer = freeingOp(nodes, nodes[b] as ComputeNode, b, out, e);
      const fr = nodes[freer] as ComputeNode;
      nodes[freer] = patchCompute(fr, { freeBytes: fr.freeBytes + keep });
      edges.from[stash] = r; // RECOMPUTE → backward
      edges.push(f, r, e.bytes[stash]!);
      for (let k = inc.offset[b]!; k < inc.offset[b + 1]!; k++) {
        const j = inc.edge[k]!;
        if (j !== stash && e.kind[j] === EDGE_DATA) edges.push(e.from[j]!, r);
      }
    }
    return { ...dag, nodes, edges: edges.list() };
  },
};

/** The ALL_GATHER feeding node b (ZeRO-3), or −1. */
function gatherInto(dag: Dag, inc: { offset: Int32Array; edge: Int32Array }, b: number): number {
  for (let k = inc.offset[b]!; k < inc.offset[b + 1]!; k++) {
    const u = dag.edges.from[inc.edge[k]!]!;
    const n = dag.nodes[u]!;
    if (n.kind === 'collective' && n.op === 'ALL_GATHER') return u;
  }
  return -1;
}

/** The backward that frees the stash: B itself, or the BW a split BI feeds. */
function freeingOp(
  nodes: DagNode[],
  b: ComputeNode,
  bi: number,
  out: { offset: Int32Array; edge: Int32Array },
  e: { to: Int32Array },
): number {
  if (b.op === 'B' || b.freeBytes > 0) return bi;
  for (let k = out.offset[bi]!; k < out.offset[bi + 1]!; k++) {
    const t = e.to[out.edge[k]!]!;
    const n = nodes[t]!;
    if (n.kind === 'compute' && n.op === 'BW' && n.block === b.block) return t;
  }
  return bi;
}
