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
  const sends = new Map<string, string>();
  const recvs = new Map<string, string>();
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const i of s.instructions) {
        // A transfer is named once per pair; the device pair keeps names unique across peers.
        if (i.op === 'SEND') sends.set(`${d.device}>${i.peer}:${i.transfer}`, i.id);
        else if (i.op === 'RECV') recvs.set(`${i.peer}>${d.device}:${i.transfer}`, i.id);
      }
  const recvOf = new Map<string, string>();
  for (const [key, send] of sends) {
    const recv = recvs.get(key);
    if (recv) recvOf.set(send, recv);
  }
  return recvOf;
}
