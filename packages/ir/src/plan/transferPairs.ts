/**
 * SEND ↔ RECV, the one place a plan's point-to-point transfers are matched. Per channel (sending
 * device plan, receiving device plan) the k-th RECV takes the k-th SEND when their transfers
 * agree, as NCCL needs and every compiled plan has, so the common case compares one pair of
 * transfers per RECV and hashes nothing (pairInOrder tries that first, for all channels at once).
 * A channel whose order differs is matched by transfer (what the simulator needs to run it), and
 * its RECVs out of order are kept for validation to refuse. A SEND or RECV with no partner is an
 * issue here, for every reader.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import type { IssueList } from './issueList.ts';
import type { P2PInstruction } from './plan.ts';
import { deviceIndexOf, instructionOf, type UnitPlacement, unitPath } from './planLayout.ts';
import { UNIT_RECV, UNIT_SEND } from './unitKind.ts';

export interface TransferPairs {
  /** SEND → its RECV and RECV → its SEND (−1 elsewhere, or where none matched). */
  readonly partner: Int32Array;
  readonly recvsOutOfOrder: readonly number[];
}

/**
 * `transfer`: per SEND/RECV unit, a value equal for the two ends of one transfer (its name, or a
 * number standing for it); `peerIndex`: the device plan of each one's peer (−1: not in the plan,
 * already an issue). `arrays`: where the pairs come from; `scratch`: the matching's own arrays.
 */
export function pairTransfers(
  u: UnitPlacement,
  peerIndex: Int32Array,
  transfer: ArrayLike<unknown>,
  issues: IssueList,
  arrays: ArraySource = FRESH,
  scratch: ArraySource = arrays,
): TransferPairs {
  const { N, D, kind } = u;
  const partner = arrays.int32(N, -1);
  if (D * D <= 1 << 20 && pairInOrder(u, peerIndex, transfer, scratch, partner))
    return { partner, recvsOutOfOrder: [] };
  // Some channel does not pair in order: every channel is matched the full way, from scratch.
  partner.fill(-1);
  // Channels are numbered as met; each unit's channel and its place among the channel's SENDs or RECVs.
  // (sender, receiver) → channel: a table when the plan has few devices, else a Map.
  const dense = D * D <= 1 << 20 ? new Int32Array(D * D).fill(-1) : undefined;
  const channelOf = new Map<number, number>();
  let channels = 0;
  const chan = scratch.int32(N, -1);
  const seq = scratch.int32(N);
  const sendCount: number[] = [];
  const recvCount: number[] = [];
  for (let v = 0; v < N; v++) {
    const k = kind[v]!;
    if (k !== UNIT_SEND && k !== UNIT_RECV) continue;
    const pi = peerIndex[v]!;
    if (pi < 0) continue;
    const here = deviceIndexOf(u, v);
    const key = k === UNIT_SEND ? here * D + pi : pi * D + here;
    let c = dense ? dense[key]! : (channelOf.get(key) ?? -1);
    if (c < 0) {
      c = channels++;
      if (dense) dense[key] = c;
      else channelOf.set(key, c);
      sendCount.push(0);
      recvCount.push(0);
    }
    chan[v] = c;
    seq[v] = k === UNIT_SEND ? sendCount[c]!++ : recvCount[c]!++;
  }
  // Each channel's SENDs in order (CSR).
  const sendAt = new Int32Array(channels + 1);
  for (let c = 0; c < channels; c++) sendAt[c + 1] = sendAt[c]! + sendCount[c]!;
  const sends = scratch.int32(sendAt[channels]!);
  for (let v = 0; v < N; v++)
    if (kind[v] === UNIT_SEND && chan[v]! >= 0) sends[sendAt[chan[v]!]! + seq[v]!] = v;
  // A channel pairs in order when it has as many SENDs as RECVs and the k-th of each agree (the
  // pairs are written as that is checked); any other is matched by transfer, below.
  const byTransferOnly = new Uint8Array(channels);
  let anyByTransfer = false;
  for (let c = 0; c < channels; c++)
    if (sendCount[c] !== recvCount[c]) {
      byTransferOnly[c] = 1;
      anyByTransfer = true;
    }
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_RECV) continue;
    const c = chan[v]!;
    if (c < 0 || byTransferOnly[c] === 1) continue;
    const sd = sends[sendAt[c]! + seq[v]!]!;
    if (transfer[sd] === transfer[v]) {
      partner[v] = sd;
      partner[sd] = v;
    } else {
      byTransferOnly[c] = 1;
      anyByTransfer = true;
    }
  }
  const recvsOutOfOrder: number[] = [];
  if (anyByTransfer)
    pairByTransfer(u, { chan, seq, sendAt, sends, sendCount, byTransferOnly }, transfer, issues, {
      partner,
      recvsOutOfOrder,
    });
  return { partner, recvsOutOfOrder };
}

/**
 * The common case (every compiled plan) in two sweeps: on every channel the k-th RECV takes the
 * k-th SEND and their transfers agree. Each channel's SENDs are chained in plan order, then each
 * RECV takes the first SEND left on its channel. False as soon as a channel is not so (a RECV
 * finds no SEND or another transfer, or a SEND is left over); what it wrote is then dropped.
 */
function pairInOrder(
  u: UnitPlacement,
  peerIndex: Int32Array,
  transfer: ArrayLike<unknown>,
  scratch: ArraySource,
  partner: Int32Array,
): boolean {
  const { N, D, kind, deviceStreams, streamStart } = u;
  // Per channel (sender · D + receiver): the first SEND not yet taken and the last one chained
  // (−1: none); per SEND, the channel's next one. Units are read device by device (their device
  // is then known): the units of device d are one run of indices.
  // Every loop bound and value is a local read once: a process's first compile runs these loops
  // interpreted for most of their length (docs/performance.md, the cold run), where each
  // property or array read re-evaluated per unit costs as much as the work itself.
  const first = scratch.int32(D * D, -1);
  const last = scratch.int32(D * D, -1);
  const next = scratch.int32(N, -1);
  for (let d = 0, v = streamStart[deviceStreams[0]!]!; d < D; d++) {
    const end = streamStart[deviceStreams[d + 1]!]!;
    for (; v < end; v++) {
      const peer = peerIndex[v]!;
      if (kind[v] !== UNIT_SEND || peer < 0) continue;
      const c = d * D + peer;
      const tail = last[c]!;
      if (tail < 0) first[c] = v;
      else next[tail] = v;
      last[c] = v;
    }
  }
  for (let d = 0, v = streamStart[deviceStreams[0]!]!; d < D; d++) {
    const end = streamStart[deviceStreams[d + 1]!]!;
    for (; v < end; v++) {
      const peer = peerIndex[v]!;
      if (kind[v] !== UNIT_RECV || peer < 0) continue;
      const c = peer * D + d;
      const sd = first[c]!;
      if (sd < 0 || transfer[sd] !== transfer[v]) return false;
      partner[v] = sd;
      partner[sd] = v;
      first[c] = next[sd]!;
    }
  }
  for (let c = 0; c < D * D; c++) if (first[c]! >= 0) return false;
  return true;
}

/** The channels of a plan's SENDs and RECVs, as pairTransfers numbers them. */
interface Channels {
  readonly chan: Int32Array;
  readonly seq: Int32Array;
  readonly sendAt: Int32Array;
  readonly sends: Int32Array;
  readonly sendCount: readonly number[];
  readonly byTransferOnly: Uint8Array;
}

/**
 * The channels not in order, matched by transfer: each RECV takes the SEND of its transfer, and
 * one taken out of the channel's order is kept for validation; what has no partner is an issue.
 */
function pairByTransfer(
  u: UnitPlacement,
  ch: Channels,
  transfer: ArrayLike<unknown>,
  issues: IssueList,
  out: { partner: Int32Array; recvsOutOfOrder: number[] },
): void {
  const { N, kind } = u;
  const { chan, seq, sendAt, sends, sendCount, byTransferOnly } = ch;
  const { partner } = out;
  // Pairs written before the channel turned out of order are undone.
  for (let v = 0; v < N; v++)
    if (kind[v] === UNIT_RECV && chan[v]! >= 0 && byTransferOnly[chan[v]!] === 1 && partner[v]! >= 0) {
      partner[partner[v]!] = -1;
      partner[v] = -1;
    }
  const byTransfer = new Map<number, Map<unknown, number>>();
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_RECV) continue;
    const c = chan[v]!;
    if (c < 0 || byTransferOnly[c] === 0) continue;
    const k = seq[v]!;
    let ofChannel = byTransfer.get(c);
    if (ofChannel === undefined)
      byTransfer.set(c, (ofChannel = sendsByTransfer(u, sends, sendAt, c, transfer, issues)));
    const sd = ofChannel.get(transfer[v]) ?? -1;
    const x = instructionOf(u, v) as P2PInstruction;
    if (sd < 0)
      issues.add(
        unitPath(u, v),
        `${x.id} receives ${x.transfer} from device ${x.peer}, which never sends it`,
      );
    else if (partner[sd] !== -1)
      issues.add(unitPath(u, v), `transfer "${x.transfer}" from device ${x.peer} is received twice`);
    else {
      partner[v] = sd;
      partner[sd] = v;
      if (k >= sendCount[c]! || transfer[sends[sendAt[c]! + k]!] !== transfer[v]) out.recvsOutOfOrder.push(v);
    }
  }
  // Channels in order paired every SEND; here one may be left over.
  for (let v = 0; v < N; v++)
    if (kind[v] === UNIT_SEND && chan[v]! >= 0 && partner[v] === -1) {
      const x = instructionOf(u, v) as P2PInstruction;
      issues.add(unitPath(u, v), `${x.id} sends to device ${x.peer}, which never receives it`);
    }
}

/** The SENDs of channel c by transfer; a transfer sent twice is an issue (the first SEND keeps it). */
function sendsByTransfer(
  u: UnitPlacement,
  sends: Int32Array,
  sendAt: Int32Array,
  c: number,
  transfer: ArrayLike<unknown>,
  issues: IssueList,
): Map<unknown, number> {
  const out = new Map<unknown, number>();
  for (let j = sendAt[c]!; j < sendAt[c + 1]!; j++) {
    const sd = sends[j]!;
    if (!out.has(transfer[sd])) out.set(transfer[sd], sd);
    else {
      const x = instructionOf(u, sd) as P2PInstruction;
      issues.add(unitPath(u, sd, 'transfer'), `transfer "${x.transfer}" is sent twice to device ${x.peer}`);
    }
  }
  return out;
}
