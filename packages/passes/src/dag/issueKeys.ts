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
 * the sweeps do integer arithmetic. What stream-order reads is each lane's units numbered
 * key·n + rank (`issueOrder`): sorting a lane by those numbers sorts it by (key, rank), and the
 * numbers themselves grow along every edge, which is what plan validation's proof needs.
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
import { outEdges, type Predecessors } from './adjacency.ts';
import type { Units } from './topo.ts';

/** Doubled key of "no predecessor": below every rank. */
const NONE = 0;
/** Most lanes the one sweep keeps a dense channel table for (lanes², 8 bytes each: 32 MiB). */
const MAX_DENSE_LANES = 2048;
/** `first` of a node with no compute-lane unit downstream. */
const NEVER = 0x7fffffff;

/** Each lane's units in FIFO order and their numbers key·n + FIFO position (see `issueOrder`). */
export interface LaneFill {
  /** Lane l's units are `units[laneOff[l] .. laneOff[l+1]-1]`. */
  readonly laneOff: Int32Array;
  readonly units: Int32Array;
  readonly number: Float64Array;
}

/** What the issue order is computed from. */
export interface LaneInputs {
  readonly dag: Dag;
  readonly units: Units;
  /** The FIFO topological order of all nodes (topo.ts). */
  readonly order: Int32Array;
  /** Each node's predecessors. */
  readonly inc: Predecessors;
  /** Each node's lane (−1 for control nodes) and where each lane's units start. */
  readonly laneOf: Int32Array;
  readonly laneOff: Int32Array;
}

/**
 * Every lane unit (a representative on a lane) numbered key·n + its FIFO position, lane by lane
 * in FIFO order. `scratch`: where its working arrays come from.
 */
export function issueOrder(lanes: LaneInputs, scratch: ArraySource = FRESH): LaneFill {
  return eagerIssueOrder(lanes, scratch) ?? exactIssueOrder(lanes, scratch);
}

/** `issueOrder` by the rule's own sweeps, whatever the design holds. */
export function exactIssueOrder(lanes: LaneInputs, scratch: ArraySource = FRESH): LaneFill {
  const { dag, units, order, inc, laneOf, laneOff } = lanes;
  const L = laneOff.length - 1;
  const fill = emptyFill(laneOff);
  const n = order.length;
  const rank = scratch.int32(n);
  for (let k = 0; k < n; k++) rank[order[k]!] = k;
  const key = exactKeys(dag, units, order, rank, inc, laneOf, L, scratch);
  const { rep } = units;
  const at = laneOff.slice(0, L);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const l = laneOf[i]!;
    if (rep[i] === i && l >= 0) {
      fill.number[at[l]!] = key[i]! * n + k;
      fill.units[at[l]!++] = i;
    }
  }
  return fill;
}

function emptyFill(laneOff: Int32Array): LaneFill {
  const size = laneOff[laneOff.length - 1]!;
  return { laneOff, units: new Int32Array(size), number: new Float64Array(size) };
}

/**
 * `issueOrder` in one sweep that computes the keys and fills the lanes as it goes, when every op
 * off the compute lanes is a SEND, RECV or ALL_GATHER (none is issued lazily, so no backward
 * sweep is needed) and no channel's order raises a SEND's key (its link to the channel's previous
 * SEND, which the sweep learns only at the RECV, would change nothing). Otherwise null: the exact
 * rule then decides. Most designs, the bench target among them, take this path; it is the same
 * arithmetic as the exact one without its separate sweeps.
 */
export function eagerIssueOrder(lanes: LaneInputs, scratch: ArraySource = FRESH): LaneFill | null {
  const { dag, units, order, inc, laneOf, laneOff } = lanes;
  const t = tableOf(dag);
  const n = t.length;
  const L = laneOff.length - 1;
  // The last SEND and RECV of each channel (sending lane × receiving lane) sit in a dense table;
  // a design with so many lanes that the table would outweigh its nodes takes the exact rule's
  // hashed one.
  if (L > MAX_DENSE_LANES || L * L > 8 * n) return null;
  const { rep } = units;
  const fill = emptyFill(laneOff);
  const { op, peer, group } = t;
  const { units: laneUnits, number } = fill;
  const computeLane = scratch.uint8(L);
  for (let i = 0; i < n; i++) if (op[i]! <= OP_UPD && laneOf[i]! >= 0) computeLane[laneOf[i]!] = 1;
  // −1: no SEND on the channel yet.
  const lastSend = scratch.int32(L * L, -1);
  const lastRecv = scratch.int32(L * L);
  const key = scratch.int32(n);
  const at = scratch.int32(L);
  at.set(laneOff.subarray(0, L));
  const incOff = inc.offset;
  const incNode = inc.node;
  // Without overlap slots every node is its own unit: no lookups of its representative.
  const single = units.members.size === 0;
  // The position of the current unit's representative: its members follow it in the order.
  let repRank = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const r = single ? i : rep[i]!;
    if (r === i) repRank = k;
    const l = laneOf[i]!;
    let ki: number;
    if (l >= 0 && computeLane[l] === 1) ki = 2 * repRank + 2;
    else {
      const o = op[i]!;
      if (o !== OP_SEND && o !== OP_RECV && o !== OP_ALL_GATHER) return null;
      ki = NONE;
      let send = -1;
      for (let e = incOff[i]!, end = incOff[i + 1]!; e < end; e++) {
        const p = incNode[e]!;
        if (o === OP_RECV && send < 0 && op[p] === OP_SEND && peer[p] === group[i] && group[p] === peer[i])
          send = p;
        if ((single ? p : rep[p]!) !== r && key[p]! > ki) ki = key[p]!;
      }
      if (send >= 0) {
        const ch = laneOf[send]! * L + l;
        const before = lastSend[ch]!;
        if (before >= 0) {
          // The channel's previous SEND would have raised this one's key: the exact rule decides.
          if (key[before]! > key[send]!) return null;
          if (key[lastRecv[ch]!]! > ki) ki = key[lastRecv[ch]!]!;
        }
        lastSend[ch] = send;
        lastRecv[ch] = i;
      }
    }
    key[i] = ki;
    if (r === i && l >= 0) {
      number[at[l]!] = ki * n + k;
      laneUnits[at[l]!++] = i;
    }
  }
  return fill;
}

/**
 * Doubled issue key of every node by the rule itself: channel links, the backward sweep when any
 * op may be lazy, the forward sweep. A unit's members share their representative's key.
 */
function exactKeys(
  dag: Dag,
  units: Units,
  order: Int32Array,
  rank: Int32Array,
  inc: Predecessors,
  laneOf: Int32Array,
  lanes: number,
  scratch: ArraySource,
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
  // An all-gather behind a RECV (a scatter-gather send's, shardTensor.ts) is issued like the
  // combine of an incoming gradient; the other all-gathers are ZeRO's, issued when prefetched.
  const gatherBehindRecv = scratch.uint8(n);
  for (let i = 0; i < n; i++) {
    if (laneOf[i]! >= 0 && computeLane[laneOf[i]!] === 1) anchored[i] = 1;
    else if (op[i] !== OP_SEND && op[i] !== OP_RECV && op[i] !== OP_ALL_GATHER) lazyOps = true;
    else if (op[i] === OP_ALL_GATHER)
      for (let e = inc.offset[i]!, end = inc.offset[i + 1]!; e < end; e++)
        if (op[inc.node[e]!] === OP_RECV) {
          gatherBehindRecv[i] = 1;
          lazyOps = true;
        }
  }
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
    const lazy =
      o === OP_RELOAD ||
      (local[i] === 0 &&
        ((o !== OP_SEND && o !== OP_RECV && o !== OP_ALL_GATHER) || gatherBehindRecv[i] === 1));
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
  inc: Predecessors,
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
