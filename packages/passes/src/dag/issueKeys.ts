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
 *
 * Keys are kept doubled, as integers (2·rank + 2; a half rank 2·rank + 1; no predecessor 0), so
 * the sweeps do integer arithmetic and the keys index a counting sort directly.
 */
import {
  type ArraySource,
  type Dag,
  FRESH,
  OP_ALL_GATHER,
  OP_RECV,
  OP_RELOAD,
  OP_SEND,
  OP_UPD,
  tableOf,
} from '@stagecraft/ir';
import { outEdges, predecessors } from './adjacency.ts';
import type { Units } from './topo.ts';

/** Doubled key of "no predecessor": below every rank. */
const NONE = 0;
/** `first` of a node with no compute-lane unit downstream. */
const NEVER = 0x7fffffff;

/**
 * Doubled issue key of every node, in 0 … 2n (a unit's members share their representative's).
 * `order`: the FIFO topological order of all nodes, `rank` the position of each node in it;
 * `laneOf`: each node's lane (−1 for control nodes). `scratch`: where its arrays, the keys too,
 * come from.
 */
export function issueKeys(
  dag: Dag,
  units: Units,
  order: Int32Array,
  rank: Int32Array,
  laneOf: Int32Array,
  lanes: number,
  scratch: ArraySource = FRESH,
): Int32Array {
  const t = tableOf(dag);
  const n = t.length;
  const { rep } = units;
  const op = t.op;
  const group = t.group;
  const computeLane = scratch.uint8(lanes);
  for (let i = 0; i < n; i++) if (op[i]! <= OP_UPD && laneOf[i]! >= 0) computeLane[laneOf[i]!] = 1;
  // Whether a node sits on a compute lane, read on every edge of both sweeps; and whether any
  // other node may be issued lazily, the only reader of the backward sweep.
  const anchored = scratch.uint8(n);
  let lazyOps = false;
  for (let i = 0; i < n; i++) {
    if (laneOf[i]! >= 0 && computeLane[laneOf[i]!] === 1) anchored[i] = 1;
    else if (op[i] !== OP_SEND && op[i] !== OP_RECV && op[i] !== OP_ALL_GATHER) lazyOps = true;
  }
  const inc = predecessors(n, dag.edges, scratch);
  const { prev, next } = channelLinks(t, order, laneOf, lanes, inc, scratch);
  // Rank of the first compute-lane unit downstream, through other nodes only; and whether one of
  // them is on the node's own group (through nodes of that group): what issues the op lazily.
  const first = scratch.int32(n, NEVER);
  const own = scratch.uint8(n);
  if (lazyOps) {
    const { to } = dag.edges;
    const out = outEdges(n, dag.edges, scratch);
    const outOff = out.offset;
    const outEdge = out.edge;
    for (let k = n - 1; k >= 0; k--) {
      const i = order[k]!;
      const r = rep[i]!;
      if (anchored[i] === 1) {
        first[i] = rank[r]!;
        continue;
      }
      let best = next[i]! >= 0 ? first[next[i]!]! : NEVER;
      let mine = 0;
      const g = group[i]!;
      for (let e = outOff[i]!, end = outOff[i + 1]!; e < end; e++) {
        const s = to[outEdge[e]!]!;
        if (rep[s] === r) continue;
        if (first[s]! < best) best = first[s]!;
        if (group[s] === g && (anchored[s] === 1 || own[s] === 1)) mine = 1;
      }
      first[i] = best;
      own[i] = mine;
    }
  }
  // Whether a compute op of the node's own group is upstream (through nodes of that group).
  const local = scratch.uint8(n);
  const key = scratch.int32(n);
  const incOff = inc.offset;
  const incNode = inc.node;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const r = rep[i]!;
    if (anchored[i] === 1) {
      key[i] = 2 * rank[r]! + 2;
      local[i] = 1;
      continue;
    }
    let lo = prev[i]! >= 0 ? key[prev[i]!]! : NONE;
    const g = group[i]!;
    for (let e = incOff[i]!, end = incOff[i + 1]!; e < end; e++) {
      const p = incNode[e]!;
      if (rep[p] === r) continue;
      if (key[p]! > lo) lo = key[p]!;
      if (group[p] === g && local[p] === 1) local[i] = 1;
    }
    const o = op[i]!;
    const lazy = o === OP_RELOAD || (o !== OP_SEND && o !== OP_RECV && o !== OP_ALL_GATHER && local[i] === 0);
    // Just below the first compute-lane unit downstream: 2·first + 1.
    const late = first[i] === NEVER ? NONE : 2 * first[i]! + 1;
    key[i] = lazy && own[i] === 1 && late > lo ? late : lo;
  }
  return key;
}

/**
 * Per SEND and RECV, the one before and after it on its channel (−1: none), in the FIFO order,
 * in which a channel's RECVs already follow its SENDs. A channel: the SEND's lane and the RECV's.
 * The last SEND and RECV of each channel sit in an open-addressing table keyed by channel: a Map
 * cost most of this sweep.
 */
function channelLinks(
  t: ReturnType<typeof tableOf>,
  order: Int32Array,
  laneOf: Int32Array,
  L: number,
  inc: { readonly offset: Int32Array; readonly node: Int32Array },
  scratch: ArraySource,
): { prev: Int32Array; next: Int32Array } {
  const n = t.length;
  const prev = scratch.int32(n, -1);
  const next = scratch.int32(n, -1);
  const { op, peer, group } = t;
  let recvs = 0;
  for (let i = 0; i < n; i++) if (op[i] === OP_RECV) recvs++;
  let size = 16;
  while (size < 2 * recvs) size *= 2;
  const mask = size - 1;
  // Channel number + 1 per slot (0: empty), and its last SEND and RECV.
  const chan = scratch.float64(size);
  const lastSend = scratch.int32(size);
  const lastRecv = scratch.int32(size);
  for (let k = 0; k < n; k++) {
    const r = order[k]!;
    if (op[r] !== OP_RECV) continue;
    for (let e = inc.offset[r]!; e < inc.offset[r + 1]!; e++) {
      const s = inc.node[e]!;
      if (op[s] !== OP_SEND || peer[s] !== group[r] || group[s] !== peer[r]) continue;
      const ch = laneOf[s]! * L + laneOf[r]! + 1;
      let h = Math.imul(ch | 0, 0x9e3779b1) & mask;
      while (chan[h] !== 0 && chan[h] !== ch) h = (h + 1) & mask;
      if (chan[h] === 0) chan[h] = ch;
      else {
        prev[s] = lastSend[h]!;
        next[lastSend[h]!] = s;
        prev[r] = lastRecv[h]!;
        next[lastRecv[h]!] = r;
      }
      lastSend[h] = s;
      lastRecv[h] = r;
      break;
    }
  }
  return { prev, next };
}
