/**
 * A plan as its readers look things up in it (measured runs, the simulator's reports, the web's
 * timeline): which device plan runs a device number (a replica of a group lowered once resolves
 * to its representative), where an instruction sits, and which RECV answers a SEND. One view
 * instead of each reader rebuilding its own maps. Each lookup table is built on first use, so a
 * reader pays only for what it asks.
 *
 * A view takes the plan as it is and does not validate it: a device listed twice is the first
 * device plan's, an id used twice is the last instruction's (validatePlan refuses both).
 */
import { DeviceIndex, type NumberedDevice } from './deviceIndex.ts';
import type { Instruction } from './plan.ts';

/** What a view reads of a device plan: a Plan's device plans are such, and so is a timeline outline's. */
export interface ViewedDevice extends NumberedDevice {
  readonly streams: readonly { readonly stream: string; readonly instructions: readonly Instruction[] }[];
}

/** Where an instruction sits: its stream and its index in that stream. */
export interface InstructionPlace {
  readonly stream: string;
  readonly index: number;
  readonly instruction: Instruction;
}

export class PlanView<D extends ViewedDevice = ViewedDevice> {
  private devices: DeviceIndex | undefined;
  private readonly places: (ReadonlyMap<string, InstructionPlace> | undefined)[];
  private byId: Map<string, Instruction> | undefined;
  private pairs: ReadonlyMap<string, string> | undefined;

  /**
   * `transfers`: SEND id → RECV id when the caller already has them (a timeline outline keeps
   * them while leaving its SENDs and RECVs out); otherwise they are matched from the plan.
   */
  constructor(
    private readonly plan: { readonly devices: readonly D[] },
    transfers?: ReadonlyMap<string, string>,
  ) {
    this.places = new Array(plan.devices.length);
    this.pairs = transfers;
  }

  /** The index into plan.devices of the device plan running device number `device`, or −1. */
  indexOf(device: number): number {
    this.devices ??= DeviceIndex.firstOf(this.plan);
    return this.devices.indexOf(device);
  }

  /** The device plan running device number `device` (a replica's is its representative's). */
  deviceOf(device: number): D | undefined {
    const i = this.indexOf(device);
    return i < 0 ? undefined : this.plan.devices[i];
  }

  /**
   * The instruction `id` of the device plan running `device`, with its stream and position (ids
   * are unique per device plan). Members of an overlapped unit have no place of their own.
   */
  placeOf(device: number, id: string): InstructionPlace | undefined {
    return this.placesOf(device)?.get(id);
  }

  /** Every instruction of the device plan running `device` by id, undefined when it has none. */
  placesOf(device: number): ReadonlyMap<string, InstructionPlace> | undefined {
    const i = this.indexOf(device);
    if (i < 0) return undefined;
    let places = this.places[i];
    if (places === undefined) {
      const own = new Map<string, InstructionPlace>();
      for (const s of this.plan.devices[i]!.streams)
        s.instructions.forEach((instruction, index) => {
          own.set(instruction.id, { stream: s.stream, index, instruction });
        });
      this.places[i] = places = own;
    }
    return places;
  }

  /** The instruction with this id on any device, a member of an overlapped unit included. */
  instruction(id: string): Instruction | undefined {
    if (this.byId === undefined) {
      const byId = new Map<string, Instruction>();
      for (const d of this.plan.devices)
        for (const s of d.streams)
          for (const i of s.instructions) {
            byId.set(i.id, i);
            if (i.op === 'OVERLAP') for (const m of i.members) byId.set(m.id, m);
          }
      this.byId = byId;
    }
    return this.byId.get(id);
  }

  /** The id of the RECV that answers SEND `sendId`, if the plan has one. */
  recvOf(sendId: string): string | undefined {
    return this.transfers.get(sendId);
  }

  /** SEND id → RECV id of every transfer that has both ends in the plan. */
  get transfers(): ReadonlyMap<string, string> {
    this.pairs ??= matchTransfers(this.plan.devices);
    return this.pairs;
  }
}

/**
 * A RECV answers the SEND of the same transfer name between the same two devices (as the plan
 * format says). A transfer is named once per device pair: RECVs are found by receiver, sender and
 * name in nested maps, without a key string built per instruction (20k ops have about 10k of them).
 */
function matchTransfers(devices: readonly ViewedDevice[]): ReadonlyMap<string, string> {
  const recvs = new Map<number, Map<number, Map<string, string>>>();
  const sends: { from: number; to: number; transfer: string; id: string }[] = [];
  for (const d of devices)
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
