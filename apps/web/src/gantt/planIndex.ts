/**
 * Lookups into a plan the timeline needs beside the simulated events: each instruction by id (for
 * provenance, costs and an overlapped unit's members) and each SEND with its RECV (for arrows).
 * Each is built on first use: the first frame of a new result draws without them unless it shows
 * arrows or overlapped units, and hover details come later still.
 */
import type { Instruction } from '@stagecraft/ir';
import type { TimelinePlan } from './timelinePlan.ts';

export interface PlanIndex {
  readonly byId: ReadonlyMap<string, Instruction>;
  /** SEND id → RECV id of the same transfer. */
  readonly recvOf: ReadonlyMap<string, string>;
}

export function indexPlan(plan: TimelinePlan): PlanIndex {
  let byId: Map<string, Instruction> | undefined;
  let recvOf: ReadonlyMap<string, string> | undefined;
  return {
    get byId() {
      byId ??= instructionsById(plan);
      return byId;
    },
    get recvOf() {
      recvOf ??= plan.transfers ?? transferPairs(plan);
      return recvOf;
    },
  };
}

function instructionsById(plan: TimelinePlan): Map<string, Instruction> {
  const byId = new Map<string, Instruction>();
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const i of s.instructions) {
        byId.set(i.id, i);
        if (i.op === 'OVERLAP') for (const m of i.members) byId.set(m.id, m);
      }
  return byId;
}

/** SEND id → RECV id of each transfer named in the plan's instructions. */
export function transferPairs(plan: TimelinePlan): ReadonlyMap<string, string> {
  // A transfer is named once per device pair: RECVs are found by receiver, sender and name in
  // nested maps, without a key string built per instruction (20k ops have about 10k of them).
  const recvs = new Map<number, Map<number, Map<string, string>>>();
  const sends: { from: number; to: number; transfer: string; id: string }[] = [];
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const i of s.instructions) {
        if (i.op === 'SEND') sends.push({ from: d.device, to: i.peer, transfer: i.transfer, id: i.id });
        else if (i.op === 'RECV') {
          let byPeer = recvs.get(d.device);
          if (!byPeer) recvs.set(d.device, (byPeer = new Map()));
          let byName = byPeer.get(i.peer);
          if (!byName) byPeer.set(i.peer, (byName = new Map()));
          byName.set(i.transfer, i.id);
        }
      }
  const recvOf = new Map<string, string>();
  for (const send of sends) {
    const recv = recvs.get(send.to)?.get(send.from)?.get(send.transfer);
    if (recv) recvOf.set(send.id, recv);
  }
  return recvOf;
}
