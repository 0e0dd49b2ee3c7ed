/**
 * `offload`: the matched forwards' stashed activations move to host memory after F (OFFLOAD,
 * which releases them on the device when it ends) and come back before the backward (RELOAD,
 * which allocates them again when it starts), both on `stream` (default "offload"), so the
 * copies overlap compute. RELOAD is issued one op ahead: when the backward before this one on the
 * group (the producer of its gradient) could start, or when this backward's own inputs are ready
 * if its gradient comes from another group.
 */
import {
  CompileError,
  type ComputeNode,
  type DagNode,
  EDGE_DATA,
  formatPath,
  memoryNode,
} from '@stagecraft/ir';
import { inEdges, outEdges } from '../adjacency.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { EdgeColumns } from './edgeColumns.ts';

export const DEFAULT_OFFLOAD_STREAM = 'offload';

export const offloadPass: Pass = {
  name: 'offload',
  run(dag, ctx) {
    const list = directivesOf(ctx.program, 'offload');
    if (list.length === 0) return dag;
    const index = new NodeIndex(dag);
    const nodes: DagNode[] = dag.nodes.slice();
    const edges = new EdgeColumns(dag.edges);
    const out = outEdges(dag.nodes.length, dag.edges);
    const inc = inEdges(dag.nodes.length, dag.edges);
    const e = dag.edges;
    const done = new Set<number>();
    for (const { d, index: di, path } of list) {
      const pass = d.filter.PASS;
      if (pass !== undefined && pass !== 'F' && pass !== '*')
        throw new CompileError({
          path: formatPath([...path, 'filter', 'PASS']),
          message: `offload moves the stash of forwards; PASS must be F, not ${pass}`,
        });
      const fs = index.match({ ...d.filter, PASS: 'F' }, [...path, 'filter']);
      if (fs.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no forward op' });
      const provenance = { pass: 'offload', directive: di };
      const stream = d.stream ?? DEFAULT_OFFLOAD_STREAM;
      for (const f of fs) {
        if (done.has(f)) continue;
        done.add(f);
        const F = nodes[f] as ComputeNode;
        if (F.allocBytes === 0) continue;
        // Stash consumer: the op of the same block and microbatch that RECOMPUTE or B/BI is.
        let stash = -1;
        for (let k = out.offset[f]!; k < out.offset[f + 1]!; k++) {
          const j = out.edge[k]!;
          const t = nodes[e.to[j]!]!;
          if (e.kind[j] === EDGE_DATA && t.kind === 'compute' && t.op !== 'F' && t.block === F.block) {
            stash = j;
            break;
          }
        }
        if (stash < 0) continue;
        const b = e.to[stash]!;
        const rest = F.id.slice(1);
        const o = nodes.length;
        const common = {
          block: F.block,
          dims: F.dims,
          group: F.group,
          stream,
          provenance,
          bytes: F.allocBytes,
        };
        nodes.push(memoryNode({ op: 'OFFLOAD', id: `OFFLOAD${rest}`, ...common }));
        const r = nodes.length;
        nodes.push(memoryNode({ op: 'RELOAD', id: `RELOAD${rest}`, ...common }));
        edges.push(f, o, F.allocBytes);
        edges.push(o, r, F.allocBytes);
        edges.push(r, b, F.allocBytes);
        // Prefetch one op ahead: when the backward's gradient comes from the backward before it on
        // this group, reload when that one could start; else when this one's inputs are ready.
        const inputs = (x: number) => {
          const out: number[] = [];
          for (let k = inc.offset[x]!; k < inc.offset[x + 1]!; k++) {
            const j = inc.edge[k]!;
            const u = e.from[j]!;
            const nu = dag.nodes[u]!;
            if (e.kind[j] !== EDGE_DATA || (nu.kind === 'compute' && nu.op === 'F')) continue;
            out.push(u);
          }
          return out;
        };
        const own = inputs(b);
        const chain = own.find((u) => {
          const nu = dag.nodes[u]!;
          return nu.kind === 'compute' && nu.group === F.group && (nu.op === 'B' || nu.op === 'BI');
        });
        for (const u of chain !== undefined ? inputs(chain) : own) edges.push(u, r);
      }
    }
    return { ...dag, nodes, edges: edges.list() };
  },
};
