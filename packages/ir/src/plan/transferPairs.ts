/**
 * SEND ↔ RECV, the one place a plan's point-to-point transfers are matched. Per channel (sending
 * device plan, receiving device plan) the k-th RECV takes the k-th SEND when their transfers
 * agree, as NCCL needs and every compiled plan has, so the common case compares one pair of
 * transfers per RECV and hashes nothing. A channel whose order differs is matched by transfer
 * (what the simulator needs to run it), and its RECVs out of order are kept for validation to
 * refuse. A SEND or RECV with no partner is an issue here, for every reader.
 */
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import type { IssueList } from './issueList.ts';
import type { P2PInstruction } from './plan.ts';
import { instructionOf, type UnitPlacement, unitPath } from './planLayout.ts';
import { UNIT_RECV, UNIT_SEND } from './unitKind.ts';

export interface TransferPairs {
  readonly sendOf: Int32Array;
  readonly recvOf: Int32Array;
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
  const { N, D, kind, unitDev } = u;
  const sendOf = arrays.int32(N, -1);
  const recvOf = arrays.int32(N, -1);
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
    const key = k === UNIT_SEND ? unitDev[v]! * D + pi : pi * D + unitDev[v]!;
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
  // A channel pairs in order when it has as many SENDs as RECVs and the k-th of each agree;
  // any other is matched by transfer.
  const byTransferOnly = new Uint8Array(channels);
  for (let c = 0; c < channels; c++) if (sendCount[c] !== recvCount[c]) byTransferOnly[c] = 1;
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_RECV) continue;
    const c = chan[v]!;
    if (c >= 0 && byTransferOnly[c] === 0 && transfer[sends[sendAt[c]! + seq[v]!]!] !== transfer[v])
      byTransferOnly[c] = 1;
  }
  const recvsOutOfOrder: number[] = [];
  let byTransfer: Map<number, Map<unknown, number>> | undefined;
  for (let v = 0; v < N; v++) {
    if (kind[v] !== UNIT_RECV) continue;
    const c = chan[v]!;
    if (c < 0) continue;
    const k = seq[v]!;
    if (byTransferOnly[c] === 0) {
      const sd = sends[sendAt[c]! + k]!;
      sendOf[v] = sd;
      recvOf[sd] = v;
      continue;
    }
    byTransfer ??= new Map();
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
    else if (recvOf[sd] !== -1)
      issues.add(unitPath(u, v), `transfer "${x.transfer}" from device ${x.peer} is received twice`);
    else {
      sendOf[v] = sd;
      recvOf[sd] = v;
      if (k >= sendCount[c]! || transfer[sends[sendAt[c]! + k]!] !== transfer[v]) recvsOutOfOrder.push(v);
    }
  }
  for (let v = 0; v < N; v++)
    if (kind[v] === UNIT_SEND && chan[v]! >= 0 && recvOf[v] === -1) {
      const x = instructionOf(u, v) as P2PInstruction;
      issues.add(unitPath(u, v), `${x.id} sends to device ${x.peer}, which never receives it`);
    }
  return { sendOf, recvOf, recvsOutOfOrder };
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
