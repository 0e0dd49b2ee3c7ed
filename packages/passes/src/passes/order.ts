/**
 * `order` fixes the execution order of ops on one device group: each slot runs after the one
 * before it. A slot's filters that select independent ops form an overlap unit (DualPipe's F&B
 * pair); filters whose ops feed each other (the regions of one stage) run in data order. An order
 * must stay on one group, order each op once, and agree with the data dependencies.
 */
import {
  CompileError,
  type ControlNode,
  type DagNode,
  EDGE_TEMPORAL,
  type EdgeKind,
  formatPath,
  type OverlapSlot,
  type PathSegment,
} from '@stagecraft/ir';
import { outEdges } from '../adjacency.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { topoOrder, unitsOf } from '../topo.ts';

/** Above this many prev×next pairs, consecutive slots are joined through an ORDER_SINK node. */
const DIRECT_EDGE_LIMIT = 4;

export const orderPass: Pass = {
  name: 'order',
  run(dag, ctx) {
    const orders = directivesOf(ctx.program, 'order');
    if (orders.length === 0) return dag;
    const index = new NodeIndex(dag);
    const out = outEdges(dag.nodes.length, dag.edges);
    const nodes: DagNode[] = dag.nodes.slice();
    const from = dag.edges.from.slice();
    const to = dag.edges.to.slice();
    const kind: EdgeKind[] = dag.edges.kind.slice();
    const bytes = dag.edges.bytes.slice();
    const edge = (u: number, v: number) => {
      from.push(u);
      to.push(v);
      kind.push(EDGE_TEMPORAL);
      bytes.push(0);
    };
    const overlaps: OverlapSlot[] = [...dag.overlaps];
    // Where each node was ordered, for "already ordered" and cycle messages.
    const slotPath = new Map<number, PathSegment[]>();
    const filterOf = new Map<number, number>();
    for (const { d, index: di, path } of orders) {
      let group = -1;
      let groupPath = '';
      let prev: number[] = [];
      d.filters.forEach((slot, j) => {
        if (slot.length === 0) return; // an idle step: nothing to order
        const members: number[] = [];
        filterOf.clear();
        slot.forEach((f, q) => {
          const fpath = [...path, 'filters', j, q];
          const found = index.match(f, fpath);
          if (found.length === 0)
            throw new CompileError({ path: formatPath(fpath), message: 'matches no op' });
          for (const n of found) {
            const node = dag.nodes[n]!;
            if (group < 0) {
              group = node.group;
              groupPath = formatPath(fpath);
            } else if (node.group !== group) {
              throw new CompileError({
                path: formatPath(fpath),
                message: `matches ${node.id} on devices [${dag.groups[node.group]!.join(', ')}], but this order runs on devices [${dag.groups[group]!.join(', ')}] (from ${groupPath}); an order stays on one device group`,
              });
            }
            const seen = slotPath.get(n);
            if (seen) {
              throw new CompileError({
                path: formatPath(fpath),
                message: `${node.id} is already ordered by ${formatPath(seen)}`,
              });
            }
            slotPath.set(n, [...path, 'filters', j]);
            filterOf.set(n, q);
            members.push(n);
          }
        });
        if (slot.length > 1 && independentParts(members, filterOf, out, dag.edges.to) > 1) {
          overlaps.push({ nodes: members, directive: di });
        }
        if (prev.length > 0) {
          if (prev.length * members.length <= DIRECT_EDGE_LIMIT) {
            for (const u of prev) for (const v of members) edge(u, v);
          } else {
            const sink: ControlNode = {
              kind: 'control',
              op: 'ORDER_SINK',
              id: `ORDER_SINK.${formatPath([...path, 'filters', j])}`,
              block: -1,
              dims: [],
              group,
              stream: 'compute',
              provenance: { pass: 'order', directive: di },
            };
            const s = nodes.length;
            nodes.push(sink);
            for (const u of prev) edge(u, s);
            for (const v of members) edge(s, v);
          }
        }
        prev = members;
      });
    }
    const next = { ...dag, nodes, edges: { from, to, kind, bytes }, overlaps };
    const topo = topoOrder(next, unitsOf(next));
    if (!topo.ok) {
      const names = topo.cycle.map((n) => nodes[n]!.id);
      const placed = topo.cycle.map((n) => slotPath.get(n)).find((p) => p !== undefined);
      throw new CompileError({
        path: placed ? formatPath(placed) : 'directives',
        message: `the order forms a cycle with the data dependencies: ${[...names, names[0]].join(' → ')}`,
      });
    }
    return next;
  },
};

/**
 * Number of independent parts among a slot's ops: ops joined by a direct data edge across
 * filters belong together (regions of one stage); separate parts run overlapped.
 */
function independentParts(
  members: readonly number[],
  filterOf: Map<number, number>,
  out: { offset: Int32Array; edge: Int32Array },
  to: readonly number[],
): number {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const q of filterOf.values()) parent.set(q, q);
  for (const m of members) {
    for (let k = out.offset[m]!; k < out.offset[m + 1]!; k++) {
      const t = to[out.edge[k]!]!;
      const qt = filterOf.get(t);
      if (qt !== undefined) parent.set(find(filterOf.get(m)!), find(qt));
    }
  }
  let parts = 0;
  for (const [q, p] of parent) if (q === p) parts++;
  return parts;
}
