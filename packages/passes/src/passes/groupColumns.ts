/**
 * The plan's columns (planColumns.ts) from the programs of its device groups: lowering numbers the
 * units of each group's program once, and every device plan of the group runs that program at
 * its own place in the plan's order, with the SEND/RECV peers of its rank.
 */
import type { PlanColumns } from '../planColumns.ts';

/** The units of every group's program, by group: group g's are base[g] .. base[g+1]−1. */
export interface GroupPrograms {
  readonly base: Int32Array;
  /** Per group, its streams' first units within the program, and one past the last. */
  readonly streamOff: readonly Int32Array[];
  readonly kind: Uint8Array;
  /** Waits of each unit (CSR over all programs), as unit numbers within the unit's program. */
  readonly waitOff: Int32Array;
  readonly wait: Int32Array;
  /** SEND/RECV: the peer's group (−1 elsewhere) and a number per transfer string. */
  readonly peerGroup: Int32Array;
  readonly transferKey: Int32Array;
  /** Topological rank of each unit's DAG unit. */
  readonly rank: Int32Array;
}

/** A device plan: the group whose program it runs (−1: none) and its rank in the group. */
export interface Placement {
  readonly group: number;
  readonly rank: number;
}

export function groupColumns(
  programs: GroupPrograms,
  placements: readonly Placement[],
  /** Index into plan.devices of the device of rank `rank` in group `group`, or −1. */
  peerIndexOf: (group: number, rank: number) => number,
): PlanColumns {
  const { base, streamOff, kind, waitOff, wait, peerGroup, transferKey } = programs;
  const topoRank = programs.rank;
  const D = placements.length;
  let N = 0;
  let S = 0;
  let W = 0;
  for (const { group: g } of placements) {
    if (g < 0) continue;
    N += base[g + 1]! - base[g]!;
    S += streamOff[g]!.length - 1;
    W += waitOff[base[g + 1]!]! - waitOff[base[g]!]!;
  }
  const deviceStreams = new Int32Array(D + 1);
  const streamStart = new Int32Array(S + 1);
  const unitStream = new Int32Array(N);
  const unitKind = new Uint8Array(N);
  const unitWaitOff = new Int32Array(N + 1);
  const waitTgt = new Int32Array(W);
  const peerIndex = new Int32Array(N).fill(-1);
  const unitTransfer = new Int32Array(N).fill(-1);
  const unitRank = new Int32Array(N);
  let u = 0;
  let s = 0;
  let w = 0;
  for (let d = 0; d < D; d++) {
    deviceStreams[d] = s;
    const { group: g, rank } = placements[d]!;
    if (g < 0) continue;
    const at = u;
    const off = streamOff[g]!;
    for (let k = 0; k + 1 < off.length; k++, s++) {
      streamStart[s] = at + off[k]!;
      for (let x = base[g]! + off[k]!; x < base[g]! + off[k + 1]!; x++, u++) {
        unitStream[u] = s;
        unitKind[u] = kind[x]!;
        unitRank[u] = topoRank[x]!;
        unitWaitOff[u] = w;
        for (let j = waitOff[x]!; j < waitOff[x + 1]!; j++) waitTgt[w++] = at + wait[j]!;
        if (peerGroup[x]! >= 0) {
          peerIndex[u] = peerIndexOf(peerGroup[x]!, rank);
          unitTransfer[u] = transferKey[x]!;
        }
      }
    }
  }
  deviceStreams[D] = s;
  streamStart[S] = N;
  unitWaitOff[N] = w;
  return {
    N,
    S,
    D,
    deviceStreams,
    streamStart,
    unitStream,
    kind: unitKind,
    waitOff: unitWaitOff,
    waitTgt,
    peerIndex,
    transferKey: unitTransfer,
    rank: unitRank,
  };
}
