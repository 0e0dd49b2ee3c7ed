/**
 * An `order` slot whose ops are joined through communication (an expert all-to-all or a tensor
 * all-reduce between a stage's regions) cannot run as one fused overlap unit: the unit would wait
 * for a collective that waits for the unit. Such a slot runs as its independent chains (DualPipe's
 * forward of one microbatch and backward of another) interleaved op by op on the compute stream
 * — a zipper: F-chain op 1, B-chain op 1, F-chain op 2, … — so while one chain's all-to-all is in
 * flight on its stream the other chain computes, as DualPipe's hand-written overlap does.
 */
import { type Dag, EDGE_DATA, isCollectiveCode, tableOf } from '@stagecraft/ir';
import type { Adjacency } from '../dag/adjacency.ts';

/**
 * The slot's members in interleaved order, or null when no member feeds another through a
 * collective (then the slot is an ordinary overlap unit or data chain).
 */
export function interleavedSlot(dag: Dag, members: readonly number[], out: Adjacency): number[] | null {
  const inSlot = new Set(members);
  const { to, kind } = dag.edges;
  const op = tableOf(dag).op;
  const succ = new Map<number, number[]>();
  let viaComm = false;
  for (const m of members) {
    const next: number[] = [];
    for (let k = out.offset[m]!; k < out.offset[m + 1]!; k++) {
      const j = out.edge[k]!;
      if (kind[j] !== EDGE_DATA) continue;
      const t = to[j]!;
      if (inSlot.has(t)) next.push(t);
      else if (isCollectiveCode(op[t]!)) {
        for (let q = out.offset[t]!; q < out.offset[t + 1]!; q++) {
          const t2 = to[out.edge[q]!]!;
          if (inSlot.has(t2)) {
            next.push(t2);
            viaComm = true;
          }
        }
      }
    }
    succ.set(m, next);
  }
  if (!viaComm) return null;
  // Chains: connected parts of the slot, each in data order (Kahn within the part).
  const parent = new Map<number, number>(members.map((m) => [m, m]));
  const find = (x: number): number => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const [m, next] of succ) for (const t of next) parent.set(find(m), find(t));
  const indeg = new Map<number, number>(members.map((m) => [m, 0]));
  for (const next of succ.values()) for (const t of next) indeg.set(t, indeg.get(t)! + 1);
  const chains = new Map<number, number[]>();
  const queue = members.filter((m) => indeg.get(m) === 0);
  while (queue.length > 0) {
    const m = queue.shift()!;
    const root = find(m);
    let c = chains.get(root);
    if (!c) chains.set(root, (c = []));
    c.push(m);
    for (const t of succ.get(m)!) {
      const d = indeg.get(t)! - 1;
      indeg.set(t, d);
      if (d === 0) queue.push(t);
    }
  }
  const lists = [...chains.values()];
  const order: number[] = [];
  for (let i = 0; order.length < members.length; i++) {
    let any = false;
    for (const c of lists)
      if (i < c.length) {
        order.push(c[i]!);
        any = true;
      }
    if (!any) break;
  }
  return order;
}
