/**
 * Setup of the simulator: the plan flattened to integer indices in a few linear passes, so the
 * event loop touches only typed arrays. Resolving string ids and transfer keys is most of the
 * setup's cost, so the common cases avoid hashing altogether: waits are found by scanning a small
 * window after a cursor per stream, and a channel's SENDs and RECVs pair in order, checked by
 * string comparison; a Map is built only where those guesses fail.
 *
 * Units (the things that run: every top-level instruction, an OVERLAP counting once) are laid
 * out stream by stream, so a unit's stream predecessor is the index before it when both are on
 * the same stream. Waits and their reverse edges are CSR arrays of unit indices. SEND↔RECV pairs
 * and collective groups are resolved to indices. Everything the plan gets wrong that would make
 * the simulation meaningless (unknown ids, unmatched transfers, disagreeing collectives,
 * durations that are not finite) is reported here with a path into the plan.
 *
 * A plan `compile` made and validation proved comes with its columns (planColumns.ts in passes):
 * its waits are unit indices already, its SEND/RECV pairs known and every cost field in a typed
 * array, so it is flattened without reading one instruction object (which a compiled plan then
 * never makes, unless a timeline or a message needs them).
 */
import {
  type ArraySource,
  COST_STRIDE,
  type CollectiveInstruction,
  deviceWaitLookup,
  FRESH,
  type Instruction,
  type Issue,
  NODE_OPS,
  OP_OFFLOAD,
  OP_UPD,
  type P2PInstruction,
  type Plan,
  type ProvenColumns,
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
  type UnitCosts,
} from '@stagecraft/ir';
import {
  type CostCluster,
  collectiveMs,
  computeMs,
  computeMsOf,
  hostTransferMs,
  p2pMs,
} from './costModel.ts';

/**
 * The unit kinds (ir's unitKind.ts) under the names engine.ts and sharedEngine.ts still import
 * from here: aliases, not definitions, kept until those files (being merged into one event loop)
 * import UNIT_* themselves.
 */
export {
  UNIT_COLLECTIVE as K_COLLECTIVE,
  UNIT_COMPUTE as K_COMPUTE,
  UNIT_MEMORY as K_MEMORY,
  UNIT_OVERLAP as K_OVERLAP,
  UNIT_RECV as K_RECV,
  UNIT_SEND as K_SEND,
} from '@stagecraft/ir';

const MAX_ERRORS = 100;

export interface Flat {
  plan: Plan;
  /** Units, streams, devices (indices into plan.devices). */
  N: number;
  /** Instructions, each member of an overlapped unit counted (the plan's ops). */
  ops: number;
  S: number;
  D: number;
  /** Per unit (unit v is instruction unitPos[v] of its stream; see instAt). */
  unitDev: Int32Array;
  unitStream: Int32Array;
  unitPos: Int32Array;
  kind: Uint8Array;
  /** Duration in ms (0 for RECV and collectives, whose time comes from their partners). */
  dur: Float64Array;
  allocB: Float64Array;
  freeB: Float64Array;
  /** Per global stream: device index, index within its device, name, first unit (one extra entry: N). */
  streamDev: Int32Array;
  streamLocal: Int32Array;
  streamName: string[];
  streamStart: Int32Array;
  /** Per device index: Σ durations of its compute and OVERLAP units. */
  busy: Float64Array;
  /** Wait targets of each unit (CSR) and the reverse: who waits for each unit. */
  waitOff: Int32Array;
  waitTgt: Int32Array;
  succOff: Int32Array;
  succ: Int32Array;
  /** Unfinished dependencies of each unit before the run: stream predecessor + waits. */
  dep: Int32Array;
  /** RECV → its SEND and SEND → its RECV (−1 elsewhere). */
  sendOf: Int32Array;
  recvOf: Int32Array;
  /** SEND/RECV: the peer device number (−1 elsewhere). */
  peer: Int32Array;
  /** Collective → group; per group its member units (CSR), duration, op and devices. */
  collGroup: Int32Array;
  groupOff: Int32Array;
  groupUnits: Int32Array;
  groupDur: Float64Array;
  groupOp: CollectiveInstruction['op'][];
  groupDevices: (readonly number[])[];
}

export type FlattenResult = { ok: true; flat: Flat } | { ok: false; errors: Issue[] };

const finite = (x: number) => x >= 0 && x < Number.POSITIVE_INFINITY;

/**
 * `columns`: the proven columns of a compiled plan (planColumns.ts in passes), which give the
 * waits as unit indices and each RECV's SEND, so only durations and memory are read from the
 * plan's objects.
 */
export function flatten(
  plan: Plan,
  cost: CostCluster,
  columns?: ProvenColumns,
  arrays: ArraySource = FRESH,
): FlattenResult {
  return columns ? fromColumns(plan, cost, columns, arrays) : fromObjects(plan, cost, arrays);
}

/** A collective unit's fields, as pass 4 checks and times them. */
interface CollectiveOf {
  op(v: number): CollectiveInstruction['op'];
  bytes(v: number): number;
  devices(v: number): readonly number[];
  /** The collective's key, for messages. */
  name(v: number): string;
}

/** What both ways of flattening share once units, durations and pairs are known. */
interface Units {
  N: number;
  ops: number;
  S: number;
  D: number;
  unitDev: Int32Array;
  unitStream: Int32Array;
  unitPos: Int32Array;
  kind: Uint8Array;
  dur: Float64Array;
  allocB: Float64Array;
  freeB: Float64Array;
  streamDev: Int32Array;
  streamLocal: Int32Array;
  streamName: string[];
  streamStart: Int32Array;
  busy: Float64Array;
  waitOff: Int32Array;
  waitTgt: Int32Array;
  dep: Int32Array;
  sendOf: Int32Array;
  recvOf: Int32Array;
  peer: Int32Array;
  collGroup: Int32Array;
  /** Per collective group: its first unit and member count. */
  groupFirst: number[];
  groupCount: number[];
}

/** Device number → index into plan.devices (replicas resolve to their group's plan), or errors. */
function deviceIndex(plan: Plan, err: (path: string, message: string) => void): (d: number) => number {
  const devs = plan.devices;
  let maxDevice = 0;
  for (const dp of devs) {
    if (dp.device > maxDevice) maxDevice = dp.device;
    for (const r of dp.replicas ?? []) if (r > maxDevice) maxDevice = r;
  }
  // An array when numbers are dense, else a Map.
  const dense = maxDevice <= 4 * devs.length + 1024;
  const devArray = dense ? new Int32Array(maxDevice + 1).fill(-1) : undefined;
  const devMap = dense ? undefined : new Map<number, number>();
  const devIndexOf = (d: number): number => {
    if (devArray) return d >= 0 && d < devArray.length ? devArray[d]! : -1;
    return devMap!.get(d) ?? -1;
  };
  for (let di = 0; di < devs.length; di++) {
    // A group lowered once stands for its replicas too: they resolve to the same device plan.
    const dp = devs[di]!;
    for (const d of [dp.device, ...(dp.replicas ?? [])]) {
      if (devIndexOf(d) >= 0) err(`devices[${di}].device`, `device ${d} appears twice in the plan`);
      else if (devArray) devArray[d] = di;
      else devMap!.set(d, di);
    }
  }
  return devIndexOf;
}

/** A compiled plan from its proven columns: no instruction object is read. */
function fromColumns(plan: Plan, cost: CostCluster, c: ProvenColumns, arrays: ArraySource): FlattenResult {
  const errors: Issue[] = [];
  const err = (path: string, message: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path, message });
  };
  const devs = plan.devices;
  const { N, S, D } = c;
  const devIndexOf = deviceIndex(plan, err);
  if (errors.length > 0) return { ok: false, errors };
  const unitDev = arrays.int32(N);
  const unitPos = arrays.int32(N);
  const dur = arrays.float64(N);
  const allocB = arrays.float64(N);
  const freeB = arrays.float64(N);
  const streamDev = new Int32Array(S);
  const streamLocal = new Int32Array(S);
  const streamName: string[] = new Array(S);
  const busy = new Float64Array(D);
  const collGroup = arrays.int32(N, -1);
  const groupOf = new Map<number, number>();
  const groupFirst: number[] = [];
  const groupCount: number[] = [];
  const { kind, streamStart, unitStream, node, costs } = c;
  const peer = arrays.int32(N, -1);
  const path = (v: number, field?: string) => {
    const p = `devices[${unitDev[v]}].streams[${streamLocal[unitStream[v]!]}].instructions[${unitPos[v]}]`;
    return field === undefined ? p : `${p}.${field}`;
  };
  let members = 0;
  for (let di = 0; di < D; di++) {
    const dp = devs[di]!;
    const here = dp.device;
    // SEND/RECV peers: the members of the same rank in the peer groups.
    const rank = dp.group >= 0 ? plan.groups[dp.group]!.indexOf(here) : -1;
    let busyMs = 0;
    for (let s = c.deviceStreams[di]!; s < c.deviceStreams[di + 1]!; s++) {
      const si = s - c.deviceStreams[di]!;
      streamDev[s] = di;
      streamLocal[s] = si;
      streamName[s] = dp.streams[si]!.stream;
      const s0 = streamStart[s]!;
      for (let u = s0; u < streamStart[s + 1]!; u++) {
        unitDev[u] = di;
        unitPos[u] = u - s0;
        const i = node[u]!;
        let d = 0;
        switch (kind[u]) {
          case UNIT_SEND:
            peer[u] = plan.groups[costs.peer[i]!]![rank]!;
            d = p2pMs(cost, here, peer[u]!, costs.bytes[i]!);
            break;
          case UNIT_RECV:
            peer[u] = plan.groups[costs.peer[i]!]![rank]!;
            break;
          case UNIT_COLLECTIVE: {
            let g = groupOf.get(i);
            if (g === undefined) {
              g = groupFirst.length;
              groupOf.set(i, g);
              groupFirst.push(u);
              groupCount.push(0);
            }
            collGroup[u] = g;
            groupCount[g]!++;
            break;
          }
          case UNIT_MEMORY:
            d = hostTransferMs(cost, costs.bytes[i]!);
            if (costs.op[i] === OP_OFFLOAD) freeB[u] = costs.bytes[i]!;
            else allocB[u] = costs.bytes[i]!;
            break;
          case UNIT_OVERLAP: {
            const { members: ms, ms: own } = c.overlaps.get(u)!;
            members += ms.length - 1;
            let a = 0;
            let f = 0;
            for (let k = 0; k < ms.length; k++) {
              const m = ms[k]!;
              if (Number.isNaN(own)) {
                const md = nodeMs(costs, m, cost);
                if (typeof md === 'string') err(path(u, `members[${k}]`), md);
                else d += md;
              }
              // The instruction's memory fields list only positive effects.
              a += Math.max(costs.alloc[m]!, 0);
              f += Math.max(costs.free[m]!, 0);
            }
            if (!Number.isNaN(own)) d = own;
            allocB[u] = a;
            freeB[u] = f;
            busyMs += d;
            break;
          }
          default: {
            // The common case read inline: the model gives the op's ms.
            const code = costs.op[i]!;
            const ms = code === OP_UPD ? Number.NaN : costs.ms[costs.block[i]! * COST_STRIDE + code]!;
            if (!Number.isNaN(ms)) d = ms;
            else {
              const cd = nodeMs(costs, i, cost);
              if (typeof cd === 'string') err(path(u), cd);
              else d = cd;
            }
            allocB[u] = Math.max(costs.alloc[i]!, 0);
            freeB[u] = Math.max(costs.free[i]!, 0);
            busyMs += d;
          }
        }
        if (!finite(d)) err(path(u), `duration ${d} ms is not a finite non-negative number`);
        if (!finite(allocB[u]!) || !finite(freeB[u]!))
          err(path(u), 'memory effects must be finite non-negative byte counts');
        dur[u] = d;
      }
    }
    busy[di] = busyMs;
  }
  const { waitOff, waitTgt } = c;
  const dep = arrays.int32(N);
  for (let st = 0; st < S; st++)
    for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++)
      dep[v] = waitOff[v + 1]! - waitOff[v]! + (v > streamStart[st]! ? 1 : 0);
  // The columns' own pairs: the engines only read them.
  const sendOf = c.sendOf;
  const recvOf = arrays.int32(N, -1);
  for (let v = 0; v < N; v++) if (sendOf[v]! >= 0) recvOf[sendOf[v]!] = v;
  const units: Units = {
    N,
    ops: N + members,
    S,
    D,
    unitDev,
    unitStream,
    unitPos,
    kind,
    dur,
    allocB,
    freeB,
    streamDev,
    streamLocal,
    streamName,
    streamStart,
    busy,
    waitOff,
    waitTgt,
    dep,
    sendOf,
    recvOf,
    peer,
    collGroup,
    groupFirst,
    groupCount,
  };
  const of: CollectiveOf = {
    op: (v) => NODE_OPS[costs.op[node[v]!]!] as CollectiveInstruction['op'],
    bytes: (v) => costs.bytes[node[v]!]!,
    devices: (v) => c.devices.get(v) ?? [],
    name: (v) => (instructionAt(plan, units, v) as CollectiveInstruction).collective,
  };
  return collectivesAndEdges(plan, cost, units, of, devIndexOf, errors, err, arrays);
}

/** Duration of compute node i of a compiled plan, as computeMs gives it for its instruction. */
function nodeMs(costs: UnitCosts, i: number, cost: CostCluster): number | string {
  const code = costs.op[i]!;
  if (code === OP_UPD) return costs.updMs[costs.group[i]!] ?? 0;
  const at = costs.block[i]! * COST_STRIDE + code;
  const ms = costs.ms[at]!;
  const flops = costs.flops[at]!;
  return computeMsOf(Number.isNaN(ms) ? undefined : ms, Number.isNaN(flops) ? undefined : flops, cost);
}

/** A plan read from its objects (a file, a copy, an edit): every reference resolved and checked. */
function fromObjects(plan: Plan, cost: CostCluster, arrays: ArraySource): FlattenResult {
  const errors: Issue[] = [];
  const err = (path: string, message: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path, message });
  };
  const devs = plan.devices;
  const D = devs.length;
  let N = 0;
  let S = 0;
  for (const dp of devs)
    for (const sp of dp.streams) {
      S++;
      N += sp.instructions.length;
    }
  const devIndexOf = deviceIndex(plan, err);
  if (errors.length > 0) return { ok: false, errors };

  const streamList: Instruction[][] = [];
  const idOf: string[] = new Array(N);
  const unitDev = arrays.int32(N);
  const unitStream = arrays.int32(N);
  const unitPos = arrays.int32(N);
  const kind = arrays.uint8(N);
  const dur = arrays.float64(N);
  const allocB = arrays.float64(N);
  const freeB = arrays.float64(N);
  const streamDev = new Int32Array(S);
  const streamLocal = new Int32Array(S);
  const streamName: string[] = [];
  const streamStart = new Int32Array(S + 1);
  const deviceStreams = new Int32Array(D + 1);
  const busy = new Float64Array(D);
  const sendOf = arrays.int32(N, -1);
  const recvOf = arrays.int32(N, -1);
  const peer = arrays.int32(N, -1);
  const collGroup = arrays.int32(N, -1);
  // Point-to-point channels: per device index, its peers' indices and, per peer, the SENDs to it
  // and the RECVs from it, in plan order.
  const chanPeer: number[][] = [];
  const chanSends: number[][][] = [];
  const chanRecvs: number[][][] = [];
  const groupKey = new Map<string, number>();
  const groupFirst: number[] = [];
  const groupCount: number[] = [];
  const at = (v: number) => streamList[unitStream[v]!]![unitPos[v]!]!;
  const path = (v: number, field?: string) => {
    const p = `devices[${unitDev[v]}].streams[${streamLocal[unitStream[v]!]}].instructions[${unitPos[v]}]`;
    return field === undefined ? p : `${p}.${field}`;
  };
  /** The channel slot of (device index di, peer device number), or −1 if the peer is not in the plan. */
  const channel = (di: number, peer: number): number => {
    const pi = devIndexOf(peer);
    if (pi < 0) return -1;
    const peers = chanPeer[di]!;
    for (let c = peers.length - 1; c >= 0; c--) if (peers[c] === pi) return c;
    peers.push(pi);
    chanSends[di]!.push([]);
    chanRecvs[di]!.push([]);
    return peers.length - 1;
  };

  // Pass 1: units, durations, memory effects, p2p channels, collective groups.
  let W = 0;
  let members = 0;
  let u = 0;
  let s = 0;
  for (let di = 0; di < D; di++) {
    const dp = devs[di]!;
    const here = dp.device;
    chanPeer.push([]);
    chanSends.push([]);
    chanRecvs.push([]);
    deviceStreams[di] = s;
    let busyMs = 0;
    for (let si = 0; si < dp.streams.length; si++) {
      const sp = dp.streams[si]!;
      streamDev[s] = di;
      streamLocal[s] = si;
      streamName.push(sp.stream);
      streamStart[s] = u;
      const list = sp.instructions;
      streamList.push(list);
      for (let k = 0; k < list.length; k++, u++) {
        const x = list[k]!;
        idOf[u] = x.id;
        W += x.waits.length;
        unitDev[u] = di;
        unitStream[u] = s;
        unitPos[u] = k;
        let d = 0;
        switch (x.op) {
          case 'SEND': {
            kind[u] = UNIT_SEND;
            peer[u] = x.peer;
            d = p2pMs(cost, here, x.peer, x.bytes);
            const c = channel(di, x.peer);
            if (c < 0) err(path(u, 'peer'), `peer device ${x.peer} is not in the plan`);
            else chanSends[di]![c]!.push(u);
            break;
          }
          case 'RECV': {
            kind[u] = UNIT_RECV;
            peer[u] = x.peer;
            const c = channel(di, x.peer);
            if (c < 0) err(path(u, 'peer'), `peer device ${x.peer} is not in the plan`);
            else chanRecvs[di]![c]!.push(u);
            break;
          }
          case 'ALL_REDUCE':
          case 'REDUCE_SCATTER':
          case 'ALL_GATHER':
          case 'ALL_TO_ALL': {
            kind[u] = UNIT_COLLECTIVE;
            let g = groupKey.get(x.collective);
            if (g === undefined) {
              g = groupFirst.length;
              groupKey.set(x.collective, g);
              groupFirst.push(u);
              groupCount.push(0);
            }
            collGroup[u] = g;
            groupCount[g]!++;
            break;
          }
          case 'OFFLOAD':
            kind[u] = UNIT_MEMORY;
            d = hostTransferMs(cost, x.bytes);
            freeB[u] = x.bytes;
            break;
          case 'RELOAD':
            kind[u] = UNIT_MEMORY;
            d = hostTransferMs(cost, x.bytes);
            allocB[u] = x.bytes;
            break;
          case 'OVERLAP': {
            kind[u] = UNIT_OVERLAP;
            members += x.members.length - 1;
            let sum = 0;
            let a = 0;
            let f = 0;
            for (let mi = 0; mi < x.members.length; mi++) {
              const m = x.members[mi]!;
              W += m.waits.length;
              if (x.ms === undefined) {
                const md = computeMs(m, cost);
                if (typeof md === 'string') err(path(u, `members[${mi}]`), md);
                else sum += md;
              }
              a += m.allocBytes ?? 0;
              f += m.freeBytes ?? 0;
            }
            d = x.ms ?? sum;
            allocB[u] = a;
            freeB[u] = f;
            busyMs += d;
            break;
          }
          default: {
            kind[u] = UNIT_COMPUTE;
            const cd = computeMs(x, cost);
            if (typeof cd === 'string') err(path(u), cd);
            else d = cd;
            if (x.allocBytes !== undefined) allocB[u] = x.allocBytes;
            if (x.freeBytes !== undefined) freeB[u] = x.freeBytes;
            busyMs += d;
          }
        }
        if (!finite(d)) err(path(u), `duration ${d} ms is not a finite non-negative number`);
        if (!finite(allocB[u]!) || !finite(freeB[u]!))
          err(path(u), 'memory effects must be finite non-negative byte counts');
        dur[u] = d;
      }
      s++;
    }
    busy[di] = busyMs;
  }
  streamStart[S] = N;
  deviceStreams[D] = S;

  // Pass 2: waits → unit indices (CSR) and dependency counts. Waits mostly name instructions a
  // little ahead of the previous hit on some stream of the device, so each lookup first scans a
  // small window after a per-(waiting stream, target stream) cursor, comparing ids; only a miss
  // builds (once per device) and asks the id Map. Ids are unique per device (plan validation
  // checks it); with duplicates the simulator resolves a wait to one of them.
  const waitOff = arrays.int32(N + 1);
  const waitTgt = arrays.int32(W);
  const dep = arrays.int32(N);
  let w = 0;
  const streams = { idOf, streamStart, unitStream, cursor: new Int32Array(S) };
  const { cursor } = streams;
  for (let di = 0; di < D; di++) {
    const s0 = deviceStreams[di]!;
    const s1 = deviceStreams[di + 1]!;
    const here = devs[di]!.device;
    const lookup = deviceWaitLookup(streams, s0, s1, () => idMap(streamStart, s0, s1, at));
    for (let st = s0; st < s1; st++) {
      for (let ts = s0; ts < s1; ts++) cursor[ts] = streamStart[ts]!;
      const list = streamList[st]!;
      let last = st;
      for (let k = 0, v = streamStart[st]!; k < list.length; k++, v++) {
        waitOff[v] = w;
        const x = list[k]!;
        const waits = x.waits;
        for (let j = 0; j < waits.length; j++) {
          const t = lookup(waits[j]!, last);
          if (t < 0) err(path(v, `waits[${j}]`), unknownMessage(waits[j]!, here));
          else {
            waitTgt[w++] = t;
            last = unitStream[t]!;
          }
        }
        if (x.op === 'OVERLAP')
          for (let mi = 0; mi < x.members.length; mi++) {
            const mw = x.members[mi]!.waits;
            for (let j = 0; j < mw.length; j++) {
              const t = lookup(mw[j]!, last);
              if (t < 0) err(path(v, `members[${mi}].waits[${j}]`), unknownMessage(mw[j]!, here));
              else if (t !== v) waitTgt[w++] = t; // a member waiting for a sibling: they run as one unit
            }
          }
        dep[v] = w - waitOff[v]! + (k > 0 ? 1 : 0);
      }
    }
  }
  waitOff[N] = w;

  // Pass 3: SEND ↔ RECV by (peer device, transfer), per channel (sender, receiver). When the
  // channel's SENDs and RECVs come in the same order (as NCCL needs, and validated plans have),
  // the k-th pairs with the k-th and a string comparison confirms it; otherwise a Map of the
  // channel's SENDs by transfer decides.
  for (let b = 0; b < D; b++)
    for (let c = 0; c < chanPeer[b]!.length; c++) {
      const a = chanPeer[b]![c]!;
      const recvs = chanRecvs[b]![c]!;
      if (recvs.length === 0) continue;
      const ca = chanPeer[a]!.indexOf(b);
      const sends = ca < 0 ? [] : chanSends[a]![ca]!;
      let inOrder = sends.length === recvs.length;
      for (let k = 0; inOrder && k < recvs.length; k++)
        inOrder = (at(sends[k]!) as P2PInstruction).transfer === (at(recvs[k]!) as P2PInstruction).transfer;
      if (inOrder) {
        for (let k = 0; k < recvs.length; k++) {
          sendOf[recvs[k]!] = sends[k]!;
          recvOf[sends[k]!] = recvs[k]!;
        }
        continue;
      }
      const byTransfer = new Map<string, number>();
      for (const sd of sends) {
        const t = (at(sd) as P2PInstruction).transfer;
        if (byTransfer.has(t))
          err(path(sd, 'transfer'), `transfer "${t}" is sent twice to device ${devs[b]!.device}`);
        else byTransfer.set(t, sd);
      }
      for (const r of recvs) {
        const x = at(r) as P2PInstruction;
        const sd = byTransfer.get(x.transfer);
        if (sd === undefined)
          err(
            path(r),
            `no SEND to device ${devs[b]!.device} with transfer "${x.transfer}" on device ${x.peer}: this RECV would wait forever`,
          );
        else if (recvOf[sd] !== -1)
          err(path(r), `transfer "${x.transfer}" from device ${x.peer} is received twice`);
        else {
          sendOf[r] = sd;
          recvOf[sd] = r;
        }
      }
    }
  for (let a = 0; a < D; a++)
    for (let c = 0; c < chanPeer[a]!.length; c++)
      for (const sd of chanSends[a]![c]!)
        if (recvOf[sd] === -1) {
          const x = at(sd) as P2PInstruction;
          err(path(sd), `no RECV of transfer "${x.transfer}" on device ${x.peer} matches this SEND`);
        }

  const units: Units = {
    N,
    ops: N + members,
    S,
    D,
    unitDev,
    unitStream,
    unitPos,
    kind,
    dur,
    allocB,
    freeB,
    streamDev,
    streamLocal,
    streamName,
    streamStart,
    busy,
    waitOff,
    waitTgt,
    dep,
    sendOf,
    recvOf,
    peer,
    collGroup,
    groupFirst,
    groupCount,
  };
  const of: CollectiveOf = {
    op: (v) => (at(v) as CollectiveInstruction).op,
    bytes: (v) => (at(v) as CollectiveInstruction).bytes,
    devices: (v) => (at(v) as CollectiveInstruction).devices,
    name: (v) => (at(v) as CollectiveInstruction).collective,
  };
  return collectivesAndEdges(plan, cost, units, of, devIndexOf, errors, err, arrays);
}

/**
 * Pass 4, collective groups (one member per listed device, all agreeing on op, devices and bytes,
 * timed once per devices array, op and size), then who waits for each unit: the Flat.
 */
function collectivesAndEdges(
  plan: Plan,
  cost: CostCluster,
  x: Units,
  of: CollectiveOf,
  devIndexOf: (d: number) => number,
  errors: Issue[],
  err: (path: string, message: string) => void,
  arrays: ArraySource,
): FlattenResult {
  const devs = plan.devices;
  const { N, unitDev, unitStream, streamLocal, unitPos, collGroup, groupFirst, groupCount } = x;
  const path = (v: number, field?: string) => {
    const p = `devices[${unitDev[v]}].streams[${streamLocal[unitStream[v]!]}].instructions[${unitPos[v]}]`;
    return field === undefined ? p : `${p}.${field}`;
  };
  const G = groupFirst.length;
  const groupOff = new Int32Array(G + 1);
  for (let g = 0; g < G; g++) groupOff[g + 1] = groupOff[g]! + groupCount[g]!;
  const groupUnits = new Int32Array(groupOff[G]!);
  const groupDur = new Float64Array(G);
  const groupOp: CollectiveInstruction['op'][] = new Array(G);
  const groupDevices: (readonly number[])[] = new Array(G);
  {
    const fill = groupOff.slice(0, G);
    for (let v = 0; v < N; v++) if (collGroup[v]! >= 0) groupUnits[fill[collGroup[v]!]!++] = v;
  }
  // Groups usually share one devices array per device group: check it and time it once per array.
  const checked = new Map<readonly number[], { listed: Set<number>; plans: number[]; ok: boolean }>();
  const durOf = new Map<readonly number[], Map<string, number>>();
  for (let g = 0; g < G; g++) {
    const head = groupFirst[g]!;
    const firstOp = of.op(head);
    const firstBytes = of.bytes(head);
    const firstDevices = of.devices(head);
    groupOp[g] = firstOp;
    groupDevices[g] = firstDevices;
    let c = checked.get(firstDevices);
    if (!c) {
      const listed = new Set<number>();
      const plans = new Set<number>();
      let fine = true;
      for (const d of firstDevices) {
        if (listed.has(d) || devIndexOf(d) < 0) {
          err(
            path(head, 'devices'),
            listed.has(d) ? `device ${d} is listed twice` : `device ${d} is not in the plan`,
          );
          fine = false;
        }
        listed.add(d);
        plans.add(devIndexOf(d));
      }
      c = { listed, plans: [...plans], ok: fine };
      checked.set(firstDevices, c);
    }
    const listed = c.listed;
    let ok = c.ok;
    // Members are device plans: a group lowered once issues for all its replicas.
    const issued = new Set<number>();
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
      const v = groupUnits[j]!;
      const here = devs[unitDev[v]!]!.device;
      if (issued.has(unitDev[v]!)) {
        err(path(v), `collective "${of.name(head)}" is issued twice on device ${here}`);
        ok = false;
      }
      issued.add(unitDev[v]!);
      const devices = of.devices(v);
      if (!listed.has(here)) {
        err(path(v, 'devices'), `collective "${of.name(head)}" does not list its own device ${here}`);
        ok = false;
      } else if (
        of.op(v) !== firstOp ||
        of.bytes(v) !== firstBytes ||
        (devices !== firstDevices && !sameSet(devices, listed))
      ) {
        err(path(v), `collective "${of.name(head)}" disagrees with ${path(head)} on op, bytes or devices`);
        ok = false;
      }
    }
    if (ok)
      for (const di of c.plans)
        if (di >= 0 && !issued.has(di))
          err(
            path(head),
            `device ${devs[di]!.device} is a member of collective "${of.name(head)}" but never issues it: the collective would hang`,
          );
    let byOp = durOf.get(firstDevices);
    if (!byOp) durOf.set(firstDevices, (byOp = new Map()));
    const k = `${firstOp}:${firstBytes}`;
    let t = byOp.get(k);
    if (t === undefined) byOp.set(k, (t = collectiveMs(cost, firstOp, firstDevices, firstBytes)));
    groupDur[g] = t;
  }
  if (errors.length > 0) return { ok: false, errors };

  const { waitOff, waitTgt } = x;
  const w = waitOff[N]!;
  const succOff = arrays.int32(N + 1);
  for (let j = 0; j < w; j++) succOff[waitTgt[j]! + 1]!++;
  for (let v = 0; v < N; v++) succOff[v + 1]! += succOff[v]!;
  const succ = arrays.int32(w);
  {
    const fill = succOff.slice(0, N);
    for (let v = 0; v < N; v++)
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) succ[fill[waitTgt[j]!]!++] = v;
  }
  // Field by field, not spread from `x`: the copy's hidden class must be one and the same for
  // every plan, or the engines reading it are deoptimised per run.
  const flat: Flat = {
    plan,
    N,
    ops: x.ops,
    S: x.S,
    D: x.D,
    unitDev,
    unitStream,
    unitPos,
    kind: x.kind,
    dur: x.dur,
    allocB: x.allocB,
    freeB: x.freeB,
    streamDev: x.streamDev,
    streamLocal,
    streamName: x.streamName,
    streamStart: x.streamStart,
    busy: x.busy,
    waitOff,
    waitTgt,
    succOff,
    succ,
    dep: x.dep,
    sendOf: x.sendOf,
    recvOf: x.recvOf,
    peer: x.peer,
    collGroup,
    groupOff,
    groupUnits,
    groupDur,
    groupOp,
    groupDevices,
  };
  return { ok: true, flat };
}

/** The instruction of unit v (made, for a compiled plan, when its stream is first read). */
function instructionAt(
  plan: Plan,
  f: Pick<Flat, 'unitDev' | 'unitStream' | 'streamLocal' | 'unitPos'>,
  v: number,
): Instruction {
  return plan.devices[f.unitDev[v]!]!.streams[f.streamLocal[f.unitStream[v]!]!]!.instructions[f.unitPos[v]!]!;
}

/** The instruction of unit v. */
export function instAt(f: Flat, v: number): Instruction {
  return instructionAt(f.plan, f, v);
}

/** Path of a unit in the plan, e.g. `devices[1].streams[0].instructions[4]`. */
export function unitPath(f: Flat, v: number): string {
  return `devices[${f.unitDev[v]}].streams[${f.streamLocal[f.unitStream[v]!]}].instructions[${f.unitPos[v]}]`;
}

/** Id → unit over one device's streams, member ids included; the first of duplicate ids wins. */
function idMap(
  streamStart: Int32Array,
  s0: number,
  s1: number,
  at: (v: number) => Instruction,
): Map<string, number> {
  const ids = new Map<string, number>();
  for (let v = streamStart[s1]! - 1; v >= streamStart[s0]!; v--) {
    const x = at(v);
    if (x.op === 'OVERLAP') for (const m of x.members) ids.set(m.id, v);
    ids.set(x.id, v);
  }
  return ids;
}

function unknownMessage(id: string, device: number): string {
  return `waits for "${id}", which is not an instruction of device ${device}`;
}

function sameSet(list: readonly number[], set: ReadonlySet<number>): boolean {
  if (list.length !== set.size) return false;
  for (const d of list) if (!set.has(d)) return false;
  return true;
}
