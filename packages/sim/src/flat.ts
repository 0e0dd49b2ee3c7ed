/**
 * Setup of the simulator: the plan flattened to integer indices in a few linear passes, so the
 * event loop touches only typed arrays. String Maps are used here and nowhere else.
 *
 * Units (the things that run: every top-level instruction, an OVERLAP counting once) are laid
 * out stream by stream, so a unit's stream predecessor is the index before it when both are on
 * the same stream. Waits and their reverse edges are CSR arrays of unit indices. SEND↔RECV pairs
 * and collective groups are resolved to indices. Everything the plan gets wrong that would make
 * the simulation meaningless (unknown ids, unmatched transfers, disagreeing collectives,
 * durations that are not finite) is reported here with a path into the plan.
 */
import type { CollectiveInstruction, Instruction, Issue, P2PInstruction, Plan } from '@stagecraft/ir';
import { type CostCluster, collectiveMs, computeMs, hostTransferMs, p2pMs } from './costModel.ts';

/** Unit kinds. */
export const K_COMPUTE = 0;
export const K_OVERLAP = 1;
export const K_SEND = 2;
export const K_RECV = 3;
export const K_COLLECTIVE = 4;
export const K_MEMORY = 5;

const MAX_ERRORS = 100;

export interface Flat {
  plan: Plan;
  /** Units, streams, devices (indices into plan.devices). */
  N: number;
  S: number;
  D: number;
  /** Per global stream, its instructions: unit v is streamList[unitStream[v]][unitPos[v]] (see instAt). */
  streamList: Instruction[][];
  /** Per unit. */
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
  /** Collective → group; per group its member units (CSR) and duration. */
  collGroup: Int32Array;
  groupOff: Int32Array;
  groupUnits: Int32Array;
  groupDur: Float64Array;
}

export type FlattenResult = { ok: true; flat: Flat } | { ok: false; errors: Issue[] };

const finite = (x: number) => x >= 0 && x < Number.POSITIVE_INFINITY;

export function flatten(plan: Plan, cost: CostCluster): FlattenResult {
  const errors: Issue[] = [];
  const err = (path: string, message: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ path, message });
  };
  const devs = plan.devices;
  const D = devs.length;
  const devIndex = new Map<number, number>();
  let N = 0;
  let S = 0;
  for (let di = 0; di < D; di++) {
    const dp = devs[di]!;
    if (devIndex.has(dp.device))
      err(`devices[${di}].device`, `device ${dp.device} appears twice in the plan`);
    else devIndex.set(dp.device, di);
    for (const sp of dp.streams) {
      S++;
      N += sp.instructions.length;
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const streamList: Instruction[][] = [];
  const unitDev = new Int32Array(N);
  const unitStream = new Int32Array(N);
  const unitPos = new Int32Array(N);
  const kind = new Uint8Array(N);
  const dur = new Float64Array(N);
  const allocB = new Float64Array(N);
  const freeB = new Float64Array(N);
  const streamDev = new Int32Array(S);
  const streamLocal = new Int32Array(S);
  const streamName: string[] = [];
  const streamStart = new Int32Array(S + 1);
  const busy = new Float64Array(D);
  const sendOf = new Int32Array(N).fill(-1);
  const recvOf = new Int32Array(N).fill(-1);
  const collGroup = new Int32Array(N).fill(-1);
  const idMaps: Map<string, number>[] = [];
  const sendMaps: Map<string, number>[] = [];
  const recvUnits: number[] = [];
  const groupKey = new Map<string, number>();
  const groupFirst: number[] = [];
  const groupCount: number[] = [];
  const at = (v: number) => streamList[unitStream[v]!]![unitPos[v]!]!;
  const path = (v: number, field?: string) => {
    const p = `devices[${unitDev[v]}].streams[${streamLocal[unitStream[v]!]}].instructions[${unitPos[v]}]`;
    return field === undefined ? p : `${p}.${field}`;
  };

  // Pass 1: units, ids, durations, memory effects, SEND keys, collective groups.
  let W = 0;
  let u = 0;
  let s = 0;
  for (let di = 0; di < D; di++) {
    const dp = devs[di]!;
    const here = dp.device;
    const ids = new Map<string, number>();
    const sends = new Map<string, number>();
    idMaps.push(ids);
    sendMaps.push(sends);
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
        const waits = x.waits;
        W += waits.length;
        unitDev[u] = di;
        unitStream[u] = s;
        unitPos[u] = k;
        const size = ids.size;
        if (ids.set(x.id, u).size === size) err(path(u, 'id'), dupMessage(x.id, here));
        let d = 0;
        switch (x.op) {
          case 'SEND': {
            kind[u] = K_SEND;
            d = p2pMs(cost, here, x.peer, x.bytes);
            const n = sends.size;
            if (sends.set(x.transfer, u).size === n)
              err(path(u, 'transfer'), `transfer "${x.transfer}" is sent twice from device ${here}`);
            break;
          }
          case 'RECV':
            kind[u] = K_RECV;
            recvUnits.push(u);
            break;
          case 'ALL_REDUCE':
          case 'REDUCE_SCATTER':
          case 'ALL_GATHER':
          case 'ALL_TO_ALL': {
            kind[u] = K_COLLECTIVE;
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
            kind[u] = K_MEMORY;
            d = hostTransferMs(cost, x.bytes);
            freeB[u] = x.bytes;
            break;
          case 'RELOAD':
            kind[u] = K_MEMORY;
            d = hostTransferMs(cost, x.bytes);
            allocB[u] = x.bytes;
            break;
          case 'OVERLAP': {
            kind[u] = K_OVERLAP;
            let sum = 0;
            let a = 0;
            let f = 0;
            for (let mi = 0; mi < x.members.length; mi++) {
              const m = x.members[mi]!;
              W += m.waits.length;
              const prior = ids.get(m.id);
              if (prior !== undefined && prior !== u)
                err(path(u, `members[${mi}].id`), dupMessage(m.id, here));
              else ids.set(m.id, u);
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
            kind[u] = K_COMPUTE;
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

  // Pass 2: waits → unit indices (CSR) and dependency counts.
  const waitOff = new Int32Array(N + 1);
  const waitTgt = new Int32Array(W);
  const dep = new Int32Array(N);
  let w = 0;
  for (let st = 0, v = 0; st < S; st++) {
    const list = streamList[st]!;
    const ids = idMaps[streamDev[st]!]!;
    const here = devs[streamDev[st]!]!.device;
    for (let k = 0; k < list.length; k++, v++) {
      waitOff[v] = w;
      const x = list[k]!;
      const waits = x.waits;
      for (let j = 0; j < waits.length; j++) {
        const t = ids.get(waits[j]!);
        if (t === undefined) err(path(v, `waits[${j}]`), unknownMessage(waits[j]!, here));
        else waitTgt[w++] = t;
      }
      if (x.op === 'OVERLAP')
        for (let mi = 0; mi < x.members.length; mi++) {
          const mw = x.members[mi]!.waits;
          for (let j = 0; j < mw.length; j++) {
            const t = ids.get(mw[j]!);
            if (t === undefined) err(path(v, `members[${mi}].waits[${j}]`), unknownMessage(mw[j]!, here));
            else if (t !== v) waitTgt[w++] = t; // a member waiting for a sibling: they run as one unit
          }
        }
      dep[v] = w - waitOff[v]! + (k > 0 ? 1 : 0);
    }
  }
  waitOff[N] = w;
  const succOff = new Int32Array(N + 1);
  for (let j = 0; j < w; j++) succOff[waitTgt[j]! + 1]!++;
  for (let v = 0; v < N; v++) succOff[v + 1]! += succOff[v]!;
  const succ = new Int32Array(w);
  {
    const fill = succOff.slice(0, N);
    for (let v = 0; v < N; v++)
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) succ[fill[waitTgt[j]!]!++] = v;
  }

  // Pass 3: SEND ↔ RECV by (peer device, transfer).
  for (const r of recvUnits) {
    const x = at(r) as P2PInstruction;
    const here = devs[unitDev[r]!]!.device;
    const pi = devIndex.get(x.peer);
    const sd = pi === undefined ? undefined : sendMaps[pi]!.get(x.transfer);
    if (pi === undefined) err(path(r, 'peer'), `peer device ${x.peer} is not in the plan`);
    else if (sd === undefined)
      err(path(r), `no SEND with transfer "${x.transfer}" on device ${x.peer}: this RECV would wait forever`);
    else if ((at(sd) as P2PInstruction).peer !== here)
      err(
        path(r),
        `the SEND with transfer "${x.transfer}" on device ${x.peer} goes to device ${(at(sd) as P2PInstruction).peer}, not ${here}`,
      );
    else if (recvOf[sd] !== -1)
      err(path(r), `transfer "${x.transfer}" from device ${x.peer} is received twice`);
    else {
      sendOf[r] = sd;
      recvOf[sd] = r;
    }
  }
  for (let v = 0; v < N; v++)
    if (kind[v] === K_SEND && recvOf[v] === -1) {
      const x = at(v) as P2PInstruction;
      if (!devIndex.has(x.peer)) err(path(v, 'peer'), `peer device ${x.peer} is not in the plan`);
      else err(path(v), `no RECV of transfer "${x.transfer}" on device ${x.peer} matches this SEND`);
    }

  // Pass 4: collective groups — one member per listed device, all agreeing on op, devices and bytes.
  const G = groupFirst.length;
  const groupOff = new Int32Array(G + 1);
  for (let g = 0; g < G; g++) groupOff[g + 1] = groupOff[g]! + groupCount[g]!;
  const groupUnits = new Int32Array(groupOff[G]!);
  const groupDur = new Float64Array(G);
  {
    const fill = groupOff.slice(0, G);
    for (let v = 0; v < N; v++) if (collGroup[v]! >= 0) groupUnits[fill[collGroup[v]!]!++] = v;
  }
  for (let g = 0; g < G; g++) {
    const head = groupFirst[g]!;
    const first = at(head) as CollectiveInstruction;
    const listed = new Set<number>();
    let ok = true;
    for (const d of first.devices) {
      if (listed.has(d) || !devIndex.has(d)) {
        err(
          path(head, 'devices'),
          listed.has(d) ? `device ${d} is listed twice` : `device ${d} is not in the plan`,
        );
        ok = false;
      }
      listed.add(d);
    }
    const issued = new Set<number>();
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
      const v = groupUnits[j]!;
      const x = at(v) as CollectiveInstruction;
      const here = devs[unitDev[v]!]!.device;
      if (issued.has(here)) {
        err(path(v), `collective "${first.collective}" is issued twice on device ${here}`);
        ok = false;
      }
      issued.add(here);
      if (!listed.has(here)) {
        err(path(v, 'devices'), `collective "${first.collective}" does not list its own device ${here}`);
        ok = false;
      } else if (x.op !== first.op || x.bytes !== first.bytes || !sameSet(x.devices, listed)) {
        err(path(v), `collective "${first.collective}" disagrees with ${path(head)} on op, bytes or devices`);
        ok = false;
      }
    }
    if (ok)
      for (const d of first.devices)
        if (!issued.has(d))
          err(
            path(head),
            `device ${d} is a member of collective "${first.collective}" but never issues it: the collective would hang`,
          );
    groupDur[g] = collectiveMs(cost, first.op, first.devices, first.bytes);
  }
  if (errors.length > 0) return { ok: false, errors };

  return {
    ok: true,
    flat: {
      plan,
      N,
      S,
      D,
      streamList,
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
      succOff,
      succ,
      dep,
      sendOf,
      recvOf,
      collGroup,
      groupOff,
      groupUnits,
      groupDur,
    },
  };
}

/** The instruction of unit v. */
export function instAt(f: Flat, v: number): Instruction {
  return f.streamList[f.unitStream[v]!]![f.unitPos[v]!]!;
}

/** Path of a unit in the plan, e.g. `devices[1].streams[0].instructions[4]`. */
export function unitPath(f: Flat, v: number): string {
  return `devices[${f.unitDev[v]}].streams[${f.streamLocal[f.unitStream[v]!]}].instructions[${f.unitPos[v]}]`;
}

function dupMessage(id: string, device: number): string {
  return `instruction id "${id}" is used twice on device ${device}`;
}

function unknownMessage(id: string, device: number): string {
  return `waits for "${id}", which is not an instruction of device ${device}`;
}

function sameSet(list: readonly number[], set: ReadonlySet<number>): boolean {
  if (list.length !== set.size) return false;
  for (const d of list) if (!set.has(d)) return false;
  return true;
}
