/**
 * Proves a plan can run before anything runs it: every wait names an instruction on another
 * stream of the device (or earlier on its own); SEND/RECV pairs exist and match in order between
 * each pair of devices; every member of a collective's group issues the group's collectives in
 * the same order; and no wait cycle (deadlock) exists.
 *
 * The proof runs in a few linear passes over integer arrays, because plans run to hundreds of
 * thousands of instructions and a compiled plan is always valid: waits are found by scanning a
 * small window after a cursor per stream (a compiled plan's waits are the very id strings of the
 * instructions they name), and a channel's SENDs and RECVs are compared pairwise in order. A plan
 * it does not accept goes to `planIssues`, which names every problem; the proof accepts only plans
 * `planIssues` finds nothing wrong with, so the answer is the same either way.
 */

import type { Issue } from '../issue.ts';
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import { blockedWaits } from './blockedWaits.ts';
import type { CollectiveInstruction, Instruction, P2PInstruction, Plan } from './plan.ts';
import type { PlanColumns } from './planColumns.ts';
import { planIssues } from './planIssues.ts';
import { UNIT_COLLECTIVE, UNIT_RECV, UNIT_SEND } from './unitKind.ts';
import { deviceWaitLookup } from './waitLookup.ts';

export interface ValidateOptions {
  /** At most this many issues are reported (default 20). */
  maxIssues?: number;
  /**
   * The caller guarantees that ids are unique per device, which skips the one check that hashes
   * every id. `compile` does: a plan's ids are the DAG's node ids, unique by construction.
   */
  uniqueIds?: boolean;
}

export function validatePlan(plan: Plan, options: number | ValidateOptions = {}): Issue[] {
  const o = typeof options === 'number' ? { maxIssues: options } : options;
  if (provesValid(plan, o.uniqueIds === true)) return [];
  return planIssues(plan, o.maxIssues ?? 20);
}

function isCollective(x: Instruction): x is CollectiveInstruction {
  return x.op === 'ALL_REDUCE' || x.op === 'REDUCE_SCATTER' || x.op === 'ALL_GATHER' || x.op === 'ALL_TO_ALL';
}

/** True when the plan is valid; false when `planIssues` must say what is wrong (or it is valid after all). */
export function provesValid(plan: Plan, uniqueIds: boolean): boolean {
  const devs = plan.devices;
  const D = devs.length;
  let N = 0;
  let S = 0;
  for (const dp of devs) {
    S += dp.streams.length;
    for (const sp of dp.streams) N += sp.instructions.length;
  }
  // Device number → index into plan.devices.
  const devIndex = new Map<number, number>();
  for (let di = 0; di < D; di++) {
    if (devIndex.has(devs[di]!.device)) return false;
    devIndex.set(devs[di]!.device, di);
  }

  // Instructions laid out device by device, stream by stream: the order `planIssues` reads them in.
  const ins: Instruction[] = new Array(N);
  // Ids read once into an array of strings: the lookups below compare many of them.
  const idOf: string[] = new Array(N);
  const unitStream = new Int32Array(N);
  const kind = new Uint8Array(N);
  const peerIndex = new Int32Array(N).fill(-1);
  const streamStart = new Int32Array(S + 1);
  const deviceStreams = new Int32Array(D + 1);
  let W = 0;
  {
    let u = 0;
    let s = 0;
    for (let di = 0; di < D; di++) {
      deviceStreams[di] = s;
      for (const sp of devs[di]!.streams) {
        streamStart[s] = u;
        const list = sp.instructions;
        for (let k = 0; k < list.length; k++, u++) {
          const x = list[k]!;
          ins[u] = x;
          idOf[u] = x.id;
          unitStream[u] = s;
          W += x.waits.length;
          if (x.op === 'SEND' || x.op === 'RECV') {
            kind[u] = x.op === 'SEND' ? UNIT_SEND : UNIT_RECV;
            const pi = devIndex.get(x.peer);
            if (pi === undefined) return false;
            peerIndex[u] = pi;
          } else if (isCollective(x)) kind[u] = UNIT_COLLECTIVE;
        }
        s++;
      }
    }
    streamStart[S] = N;
    deviceStreams[D] = S;
  }

  if (!uniqueIds) {
    for (let di = 0; di < D; di++) {
      const seen = new Set<string>();
      for (let v = streamStart[deviceStreams[di]!]!; v < streamStart[deviceStreams[di + 1]!]!; v++) {
        if (seen.has(idOf[v]!)) return false;
        seen.add(idOf[v]!);
      }
    }
  }

  // Waits → instruction indices.
  const waitOff = new Int32Array(N + 1);
  const waitTgt = new Int32Array(W);
  const streams = { idOf, streamStart, unitStream, cursor: new Int32Array(S) };
  const { cursor } = streams;
  let w = 0;
  for (let di = 0; di < D; di++) {
    const s0 = deviceStreams[di]!;
    const s1 = deviceStreams[di + 1]!;
    const lookup = deviceWaitLookup(streams, s0, s1, () => {
      const ids = new Map<string, number>();
      for (let x = streamStart[s1]! - 1; x >= streamStart[s0]!; x--) ids.set(idOf[x]!, x);
      return ids;
    });
    for (let st = s0; st < s1; st++) {
      for (let ts = s0; ts < s1; ts++) cursor[ts] = streamStart[ts]!;
      let last = st;
      for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++) {
        waitOff[v] = w;
        const waits = ins[v]!.waits;
        for (let j = 0; j < waits.length; j++) {
          const t = lookup(waits[j]!, last);
          // Unknown: planIssues says which.
          if (t < 0) return false;
          waitTgt[w++] = t;
          last = unitStream[t]!;
        }
      }
    }
  }
  waitOff[N] = w;

  // Transfers as numbers: equal strings, equal numbers.
  const transferKey = new Int32Array(N).fill(-1);
  const keys = new Map<string, number>();
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_SEND && kind[v] !== UNIT_RECV) continue;
    const name = (ins[v] as P2PInstruction).transfer;
    let k = keys.get(name);
    if (k === undefined) keys.set(name, (k = keys.size));
    transferKey[v] = k;
  }
  const layout = {
    N,
    S,
    D,
    deviceStreams,
    streamStart,
    unitStream,
    kind,
    waitOff,
    waitTgt,
    peerIndex,
    transferKey,
  };
  return (
    provesLayout(layout, FRESH, (joint) =>
      jointSteps(
        plan,
        streamStart,
        deviceStreams,
        joint,
        (v) => (isCollective(ins[v]!) ? (ins[v] as CollectiveInstruction).devices : undefined),
        (v) => (ins[v] as CollectiveInstruction).collective,
      ),
    ) !== undefined
  );
}

/**
 * The same proof on the columns lowering made with the plan: each RECV's SEND when the plan is
 * valid, undefined when `provesValid` or `planIssues` must decide. Ids are unique per device and
 * every wait names the instruction its column says, by construction of the columns.
 */
export function provesColumns(
  plan: Plan,
  columns: PlanColumns,
  scratch: ArraySource = FRESH,
): Int32Array | undefined {
  // A collective's key is its DAG node: the units of one node are one collective.
  const { kind, node, devices } = columns;
  return provesLayout(columns, scratch, (joint) =>
    jointSteps(
      plan,
      columns.streamStart,
      columns.deviceStreams,
      joint,
      (v) => (kind[v] === UNIT_COLLECTIVE ? devices.get(v) : undefined),
      (v) => node[v],
    ),
  );
}

type Layout = Pick<
  PlanColumns,
  | 'N'
  | 'S'
  | 'D'
  | 'deviceStreams'
  | 'streamStart'
  | 'unitStream'
  | 'kind'
  | 'waitOff'
  | 'waitTgt'
  | 'peerIndex'
  | 'transferKey'
> & { readonly rank?: Int32Array };

/**
 * Every wait on the waiting instruction's device and not later on its own stream; SEND/RECV
 * channels matching in order; collectives agreeing (`collectives` fills `joint`); no wait cycle.
 * Returns each RECV's SEND, or undefined.
 */
/** `scratch`: where the proof's own arrays come from (each RECV's SEND, returned, is always fresh). */
function provesLayout(
  layout: Layout,
  scratch: ArraySource,
  collectives: (joint: Int32Array) => boolean,
): Int32Array | undefined {
  const { N, D, deviceStreams, streamStart, unitStream, kind, waitOff, waitTgt, peerIndex, transferKey } =
    layout;
  for (let di = 0; di < D; di++) {
    const s0 = deviceStreams[di]!;
    const s1 = deviceStreams[di + 1]!;
    for (let v = streamStart[s0]!; v < streamStart[s1]!; v++) {
      const st = unitStream[v]!;
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) {
        const t = waitTgt[j]!;
        const ts = unitStream[t]!;
        // Elsewhere, or later on the same stream: planIssues says which.
        if (ts < s0 || ts >= s1 || (ts === st && t >= v)) return undefined;
      }
    }
  }

  // SEND/RECV: per channel (sender, receiver), the k-th RECV takes the k-th SEND's transfer.
  // Channels are numbered as met; each unit's channel and its place in it, in typed arrays.
  const sendOf = new Int32Array(N).fill(-1);
  // (sender, receiver) → channel: a table when the plan has few devices, else a Map.
  const dense = D * D <= 1 << 20 ? new Int32Array(D * D).fill(-1) : undefined;
  const channelOf = new Map<number, number>();
  let channels = 0;
  const chan = scratch.int32(N, -1);
  let sendCount: number[] = [];
  let recvCount: number[] = [];
  let C = 0;
  for (let di = 0; di < D; di++) {
    for (let v = streamStart[deviceStreams[di]!]!; v < streamStart[deviceStreams[di + 1]!]!; v++) {
      const k = kind[v]!;
      if (k === UNIT_COLLECTIVE) C++;
      if (k !== UNIT_SEND && k !== UNIT_RECV) continue;
      const pi = peerIndex[v]!;
      if (pi < 0) return undefined;
      const key = k === UNIT_SEND ? di * D + pi : pi * D + di;
      let c = dense ? dense[key]! : (channelOf.get(key) ?? -1);
      if (c < 0) {
        c = channels++;
        if (dense) dense[key] = c;
        else channelOf.set(key, c);
        sendCount.push(0);
        recvCount.push(0);
      }
      chan[v] = c;
      if (k === UNIT_SEND) sendCount[c]!++;
      else recvCount[c]!++;
    }
  }
  // Every SEND has its RECV and every RECV its SEND: the counts agree per channel.
  const sendAt = new Int32Array(channels + 1);
  for (let c = 0; c < channels; c++) {
    if (sendCount[c] !== recvCount[c]) return undefined;
    sendAt[c + 1] = sendAt[c]! + sendCount[c]!;
  }
  sendCount = recvCount = [];
  const sends = scratch.int32(sendAt[channels]!);
  const nextSend = sendAt.slice(0, channels);
  const nextRecv = sendAt.slice(0, channels);
  for (let v = 0; v < N; v++) if (kind[v] === UNIT_SEND) sends[nextSend[chan[v]!]!++] = v;
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_RECV) continue;
    const sd = sends[nextRecv[chan[v]!]!++]!;
    if (transferKey[sd] !== transferKey[v]) return undefined;
    sendOf[v] = sd;
  }

  // Collectives: every member issues the group's collectives in the same order; the k-th of a
  // group is one joint step, represented by the first member's instruction.
  const joint = scratch.int32(N);
  for (let v = 0; v < N; v++) joint[v] = v;
  if (C > 0 && !collectives(joint)) return undefined;
  if (layout.rank !== undefined && ranksAscend(layout, joint, sendOf, layout.rank)) return sendOf;
  return acyclic(layout, joint, sendOf) ? sendOf : undefined;
}

/**
 * The wait graph: node v is the end of instruction v (its joint step's, for a collective); N + v
 * the post of a RECV, which releases the RECV's stream while the RECV itself waits for its SEND.
 * An instruction's stream successor and its own waits attach to its post for a RECV, else to its
 * end.
 *
 * True when `rank` numbers that graph topologically: every edge goes from a lower to a higher
 * key, with key 2·rank for a RECV's post and 2·rank + 1 for an end. Then no cycle exists.
 */
function ranksAscend(layout: Layout, joint: Int32Array, sendOf: Int32Array, rank: Int32Array): boolean {
  const { S, streamStart, kind, waitOff, waitTgt } = layout;
  // The key of the end of v is 2·rank[joint[v]] + 1 (written out: no closure per proof).
  for (let st = 0; st < S; st++) {
    let prev = -1;
    for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++) {
      const isRecv = kind[v] === UNIT_RECV;
      const end = 2 * rank[joint[v]!]! + 1;
      const self = isRecv ? 2 * rank[v]! : end;
      if (prev >= self) return false;
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++)
        if (2 * rank[joint[waitTgt[j]!]!]! + 1 >= self) return false;
      if (isRecv && 2 * rank[joint[sendOf[v]!]!]! + 1 >= end) return false;
      prev = self;
    }
  }
  return true;
}

/** No cycle in the wait graph (see ranksAscend), by Kahn's algorithm. */
function acyclic(layout: Layout, joint: Int32Array, sendOf: Int32Array): boolean {
  const { N, S, streamStart, kind, waitOff, waitTgt } = layout;
  let R = 0;
  for (let v = 0; v < N; v++) if (kind[v] === UNIT_RECV) R++;
  const E = N - S + waitOff[N]! + 2 * R;
  const dependent = new Int32Array(E);
  const dependency = new Int32Array(E);
  let m = 0;
  for (let st = 0; st < S; st++) {
    let prev = -1;
    for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++) {
      const isRecv = kind[v] === UNIT_RECV;
      const self = isRecv ? N + v : joint[v]!;
      if (prev >= 0) {
        dependent[m] = self;
        dependency[m++] = prev;
      }
      for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) {
        dependent[m] = self;
        dependency[m++] = joint[waitTgt[j]!]!;
      }
      if (isRecv) {
        dependent[m] = v;
        dependency[m++] = N + v;
        dependent[m] = v;
        dependency[m++] = joint[sendOf[v]!]!;
      }
      prev = self;
    }
  }
  return blockedWaits(2 * N, dependent, dependency, m) === null;
}

/**
 * Fills `joint` for collectives; false where members disagree or a member is outside its group.
 * `devicesOf(v)`: the devices of collective unit v (undefined for any other unit); `keyOf(v)`:
 * what makes collective units the same collective (equal keys).
 */
function jointSteps(
  plan: Plan,
  streamStart: Int32Array,
  deviceStreams: Int32Array,
  joint: Int32Array,
  devicesOf: (v: number) => readonly number[] | undefined,
  keyOf: (v: number) => unknown,
): boolean {
  const seqs = new Map<string, Map<number, number[]>>(); // group → device → instructions in order
  // Collectives of one group usually share their devices array: sort it once.
  const groupKeyOf = new WeakMap<readonly number[], string>();
  // A group lowered once issues its collectives for all its replicas.
  const repOf = new Map<number, number>();
  for (const dev of plan.devices) for (const r of dev.replicas ?? []) repOf.set(r, dev.device);
  for (let di = 0; di < plan.devices.length; di++) {
    const device = plan.devices[di]!.device;
    for (let v = streamStart[deviceStreams[di]!]!; v < streamStart[deviceStreams[di + 1]!]!; v++) {
      const devices = devicesOf(v);
      if (devices === undefined) continue;
      if (!devices.includes(device)) return false;
      let g = groupKeyOf.get(devices);
      if (g === undefined) groupKeyOf.set(devices, (g = [...devices].sort((a, b) => a - b).join(',')));
      let perDev = seqs.get(g);
      if (!perDev) seqs.set(g, (perDev = new Map()));
      let seq = perDev.get(device);
      if (!seq) perDev.set(device, (seq = []));
      seq.push(v);
    }
  }
  for (const [g, perDev] of seqs) {
    const members = [...new Set(g.split(',').map((m) => repOf.get(Number(m)) ?? Number(m)))];
    const ref = perDev.get(members[0]!) ?? [];
    for (const m of members) {
      const seq = perDev.get(m) ?? [];
      if (seq.length !== ref.length) return false;
      for (let k = 0; k < seq.length; k++) {
        if (keyOf(seq[k]!) !== keyOf(ref[k]!)) return false;
        joint[seq[k]!] = ref[k]!;
      }
    }
  }
  return true;
}
