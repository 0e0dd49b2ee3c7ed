/**
 * Topological order of the DAG with overlap slots contracted to one unit each, by Kahn's algorithm
 * with a FIFO queue: deterministic, and a RECV is queued the moment its SEND is, so the RECVs of
 * a channel come out in the order of its SENDs. On a cycle it returns one cycle of units.
 */
import { type ArraySource, type Dag, FRESH, tableOf } from '@stagecraft/ir';
import { inEdges, type Predecessors } from './adjacency.ts';

export interface Units {
  /** Representative node of each node's unit (itself unless it is in an overlap slot). */
  readonly rep: Int32Array;
  /** Members of each representative's unit, in slot order (only for overlap units). */
  readonly members: Map<number, readonly number[]>;
}

export function unitsOf(dag: Dag): Units {
  const rep = new Int32Array(tableOf(dag).length);
  for (let i = 0; i < rep.length; i++) rep[i] = i;
  const members = new Map<number, readonly number[]>();
  for (const o of dag.overlaps) {
    const r = o.nodes[0]!;
    for (const n of o.nodes) rep[n] = r;
    members.set(r, o.nodes);
  }
  return { rep, members };
}

export type TopoResult =
  | {
      ok: true;
      order: Int32Array;
      /**
       * Each node's predecessors (adjacency.ts `predecessors`, the same lists), filled in the
       * sweep that fills the successors, when every node is its own unit and no edge is a loop;
       * else undefined. Its arrays come from `lentFrom`.
       */
      predecessors?: { readonly lists: Predecessors; readonly lentFrom: ArraySource };
    }
  | { ok: false; cycle: number[] };

const memo = new WeakMap<Dag, TopoResult & { units: Units }>();

/**
 * Units and topological order of a DAG, computed once per DAG: `order` checks the order it adds
 * is acyclic and `stream-order` lays the same order out per stream.
 */
export function topoOrderOf(dag: Dag, scratch: ArraySource = FRESH): TopoResult & { units: Units } {
  let hit = memo.get(dag);
  if (!hit) {
    const units = unitsOf(dag);
    const topo = topoOrder(dag, units, scratch);
    hit = topo.ok ? { ...topo, units } : { ok: false, cycle: topo.cycle, units };
    memo.set(dag, hit);
  }
  return hit;
}

/** `scratch`: where the sort's own arrays come from (the order itself is always fresh: it is kept). */
export function topoOrder(dag: Dag, units: Units, scratch: ArraySource = FRESH): TopoResult {
  const n = tableOf(dag).length;
  const { rep, members } = units;
  const { from, to } = dag.edges;
  const m = from.length;
  // In-degrees of units and successor units of each node (CSR, the targets themselves rather
  // than edge indices, so the sort below reads them in sequence), counted in one sweep.
  // Without overlap slots every node is its own unit: the sweeps skip looking its unit up.
  const single = members.size === 0;
  const indeg = scratch.int32(n);
  const off = scratch.int32(n + 1);
  let loops = 0;
  if (single)
    for (let j = 0; j < m; j++) {
      const u = from[j]!;
      const b = to[j]!;
      off[u + 1]!++;
      if (u !== b) indeg[b]!++;
      else loops++;
    }
  else
    for (let j = 0; j < m; j++) {
      const u = from[j]!;
      const b = rep[to[j]!]!;
      off[u + 1]!++;
      if (rep[u] !== b) indeg[b]!++;
    }
  for (let i = 0; i < n; i++) off[i + 1]! += off[i]!;
  const fill = scratch.int32(n);
  fill.set(off.subarray(0, n));
  const succ = scratch.int32(m);
  // Every node its own unit and no loop: the in-degrees are the predecessor counts, and the
  // sweep that fills the successors fills the predecessors too (stream-order and lower-plan read
  // them), instead of a second count and fill over all the edges.
  let predecessors: { lists: Predecessors; lentFrom: ArraySource } | undefined;
  if (single && loops === 0) {
    const predOff = scratch.int32(n + 1);
    for (let i = 0; i < n; i++) predOff[i + 1] = predOff[i]! + indeg[i]!;
    const predFill = scratch.int32(n);
    predFill.set(predOff.subarray(0, n));
    const pred = scratch.int32(m);
    for (let j = 0; j < m; j++) {
      const u = from[j]!;
      const b = to[j]!;
      succ[fill[u]!++] = b;
      pred[predFill[b]!++] = u;
    }
    predecessors = { lists: { offset: predOff, node: pred }, lentFrom: scratch };
  } else if (single) for (let j = 0; j < m; j++) succ[fill[from[j]!]!++] = to[j]!;
  else for (let j = 0; j < m; j++) succ[fill[from[j]!]!++] = rep[to[j]!]!;
  const order = new Int32Array(n);
  let emitted = 0;
  if (single) {
    // Every unit a single node: the FIFO queue is the order itself.
    for (let i = 0; i < n; i++) if (indeg[i] === 0) order[emitted++] = i;
    for (let head = 0; head < emitted; head++) {
      const r = order[head]!;
      for (let k = off[r]!; k < off[r + 1]!; k++) {
        const t = succ[k]!;
        if (t !== r && --indeg[t]! === 0) order[emitted++] = t;
      }
    }
  } else {
    const queue = scratch.int32(n);
    let head = 0;
    let tail = 0;
    for (let i = 0; i < n; i++) if (rep[i] === i && indeg[i] === 0) queue[tail++] = i;
    const release = (u: number) => {
      const ru = rep[u]!;
      for (let k = off[u]!; k < off[u + 1]!; k++) {
        const t = succ[k]!;
        if (t !== ru && --indeg[t]! === 0) queue[tail++] = t;
      }
    };
    while (head < tail) {
      const r = queue[head++]!;
      const ms = members.get(r);
      if (ms) {
        for (const x of ms) order[emitted++] = x;
        for (const x of ms) release(x);
      } else {
        order[emitted++] = r;
        release(r);
      }
    }
  }
  if (emitted === n) return predecessors ? { ok: true, order, predecessors } : { ok: true, order };
  return { ok: false, cycle: findCycle(dag, units, indeg) };
}

/** Walks backwards through units still waiting until one repeats: that loop is a cycle. */
function findCycle(dag: Dag, units: Units, indeg: Int32Array): number[] {
  const { rep } = units;
  const inc = inEdges(tableOf(dag).length, dag.edges);
  let start = -1;
  for (let i = 0; i < indeg.length; i++)
    if (rep[i] === i && indeg[i]! > 0) {
      start = i;
      break;
    }
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  let cur = start;
  while (!seenAt.has(cur)) {
    seenAt.set(cur, path.length);
    path.push(cur);
    const ms = units.members.get(cur) ?? [cur];
    let next = -1;
    for (const m of ms) {
      for (let k = inc.offset[m]!; k < inc.offset[m + 1]! && next < 0; k++) {
        const p = rep[dag.edges.from[inc.edge[k]!]!]!;
        if (p !== cur && indeg[p]! > 0) next = p;
      }
      if (next >= 0) break;
    }
    if (next < 0) break;
    cur = next;
  }
  // path runs against the edges; the cycle is its tail from the repeated unit, reversed.
  const cycle = path.slice(seenAt.get(cur) ?? 0).reverse();
  return cycle;
}
