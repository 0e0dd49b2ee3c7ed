/**
 * When a device's host thread would issue each communication op, as a key comparable across the
 * whole DAG. Real runtimes walk the compute schedule and issue NCCL calls inline: an op that
 * follows a compute op of its own group (an expert dispatch after attention, a gradient
 * reduction after its backward, a SEND) is issued right after that op; one whose inputs come from
 * another device (the combine of an incoming gradient, behind its RECV) and a RELOAD right before
 * the first compute op of its group that needs it. Parameter gathers (ZeRO) are issued as soon
 * as what their prefetch edges name is done (replicate.ts encodes FSDP's one-ahead prefetch). Piper's
 * `resolve_total_order_per_stream` orders side streams the same way, by their compute anchors.
 *
 * Compute lanes (lanes holding compute ops) keep their FIFO topological order: a unit there has
 * its position `rank` in that order as key. Any other unit's key is the largest of its
 * predecessors' keys, raised for the consumer-anchored ops to just below (−½) the rank of the
 * first compute-lane unit downstream. The SENDs of one channel (sending lane to receiving lane),
 * and its RECVs, count each as a predecessor of the next, so a channel's RECVs keep the order of
 * its SENDs (NCCL matches point-to-point calls in order); a RECV is issued with its SEND, as the
 * FIFO order did, since a RECV posted late holds its sender's stream. Keys never decrease along
 * an edge or such a link and ties fall back to `rank`, itself topological, so sorting by
 * (key, rank) is a topological order: lanes read off it cannot deadlock.
 */
import { type Dag, OP_ALL_GATHER, OP_RECV, OP_RELOAD, OP_SEND, OP_UPD, tableOf } from '@stagecraft/ir';
import { outEdges, predecessors } from './adjacency.ts';
import type { Units } from './topo.ts';

/**
 * Issue key of every node (a unit's members share their representative's). `order`: the FIFO
 * topological order of all nodes, `rank` the position of each node in it; `laneOf`: each node's
 * lane (−1 for control nodes).
 */
export function issueKeys(
  dag: Dag,
  units: Units,
  order: Int32Array,
  rank: Int32Array,
  laneOf: Int32Array,
  lanes: number,
): Float64Array {
  const t = tableOf(dag);
  const n = t.length;
  const { rep } = units;
  const computeLane = new Uint8Array(lanes);
  for (let i = 0; i < n; i++) if (t.op[i]! <= OP_UPD && laneOf[i]! >= 0) computeLane[laneOf[i]!] = 1;
  const anchored = (i: number) => laneOf[i]! >= 0 && computeLane[laneOf[i]!] === 1;
  const inc = predecessors(n, dag.edges);
  const { prev, next } = channelLinks(t, order, laneOf, lanes, inc);
  const { to } = dag.edges;
  // Rank of the first compute-lane unit downstream, through other nodes only; and whether one of
  // them is on the node's own group (through nodes of that group): what issues the op lazily.
  const first = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const own = new Uint8Array(n);
  const groupOf = (i: number) => t.group[i]!;
  const out = outEdges(n, dag.edges);
  for (let k = n - 1; k >= 0; k--) {
    const i = order[k]!;
    if (anchored(i)) {
      first[i] = rank[rep[i]!]!;
      continue;
    }
    let best = next[i]! >= 0 ? first[next[i]!]! : Number.POSITIVE_INFINITY;
    let mine = 0;
    for (let e = out.offset[i]!; e < out.offset[i + 1]!; e++) {
      const s = to[out.edge[e]!]!;
      if (rep[s] === rep[i]) continue;
      if (first[s]! < best) best = first[s]!;
      if (groupOf(s) === groupOf(i) && (anchored(s) || own[s] === 1)) mine = 1;
    }
    first[i] = best;
    own[i] = mine;
  }
  // Whether a compute op of the node's own group is upstream (through nodes of that group).
  const local = new Uint8Array(n);
  const key = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    if (anchored(i)) {
      key[i] = rank[rep[i]!]!;
      local[i] = 1;
      continue;
    }
    let lo = prev[i]! >= 0 ? key[prev[i]!]! : Number.NEGATIVE_INFINITY;
    for (let e = inc.offset[i]!; e < inc.offset[i + 1]!; e++) {
      const p = inc.node[e]!;
      if (rep[p] === rep[i]) continue;
      if (key[p]! > lo) lo = key[p]!;
      if (groupOf(p) === groupOf(i) && local[p] === 1) local[i] = 1;
    }
    const op = t.op[i]!;
    const lazy =
      op === OP_RELOAD || (op !== OP_SEND && op !== OP_RECV && op !== OP_ALL_GATHER && local[i] === 0);
    key[i] = lazy && own[i] === 1 && first[i]! - 0.5 > lo ? first[i]! - 0.5 : lo;
  }
  return key;
}

/**
 * Per SEND and RECV, the one before and after it on its channel (−1: none), in the FIFO order,
 * in which a channel's RECVs already follow its SENDs. A channel: the SEND's lane and the RECV's.
 */
function channelLinks(
  t: ReturnType<typeof tableOf>,
  order: Int32Array,
  laneOf: Int32Array,
  L: number,
  inc: { readonly offset: Int32Array; readonly node: Int32Array },
): { prev: Int32Array; next: Int32Array } {
  const n = t.length;
  const prev = new Int32Array(n).fill(-1);
  const next = new Int32Array(n).fill(-1);
  const lastSend = new Map<number, number>();
  const lastRecv = new Map<number, number>();
  const link = (last: Map<number, number>, ch: number, i: number) => {
    const p = last.get(ch);
    if (p !== undefined) {
      prev[i] = p;
      next[p] = i;
    }
    last.set(ch, i);
  };
  for (let k = 0; k < n; k++) {
    const r = order[k]!;
    if (t.op[r] !== OP_RECV) continue;
    for (let e = inc.offset[r]!; e < inc.offset[r + 1]!; e++) {
      const s = inc.node[e]!;
      if (t.op[s] !== OP_SEND || t.peer[s] !== t.group[r] || t.group[s] !== t.peer[r]) continue;
      const ch = laneOf[s]! * L + laneOf[r]!;
      link(lastSend, ch, s);
      link(lastRecv, ch, r);
      break;
    }
  }
  return { prev, next };
}
