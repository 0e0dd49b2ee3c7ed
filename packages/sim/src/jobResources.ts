/**
 * What each job occupies on a real cluster, fixed by the plan before a run: the link class it
 * moves data over, the devices it touches, and the SM share a communication kernel takes from
 * compute. sharedPace.ts shares these resources among the jobs running at once.
 *
 * A job is a unit, or a whole collective standing under its first member.
 */
import { UNIT_COLLECTIVE, UNIT_MEMORY, UNIT_SEND } from '@stagecraft/ir';
import { type CostCluster, linkBetween } from './costModel.ts';
import type { Flat } from './flat.ts';

/** Link classes: none (a collective of one device), intra-node (NVLink), inter-node (InfiniBand), host (PCIe). */
export const C_NONE = 0;
export const C_INTRA = 1;
export const C_INTER = 2;
export const C_HOST = 3;

/** NCCL's ring channels, one SM each: a collective's share when its stream gives none. */
export const DEFAULT_COMM_SM_FRACTION = 0.1;

export class JobResources {
  /** Per unit, its link class (C_*). */
  readonly cls: Uint8Array;
  /** Per unit, the device index of a SEND's peer (−1 when the plan has no such device). */
  private readonly peerDev: Int32Array;
  /** Per global stream, its `smFraction` if the plan gives one. */
  private readonly smOfStream: (number | undefined)[];
  /** [d] for each device index, shared rather than made per job. */
  private readonly one: number[][];

  constructor(
    private readonly f: Flat,
    cost: CostCluster & { kind: 'custom' },
  ) {
    const { N, kind, unitDev } = f;
    const devices = f.plan.devices;
    this.smOfStream = f.streamName.map(
      (_, s) => devices[f.streamDev[s]!]!.streams[f.streamLocal[s]!]!.smFraction,
    );
    this.one = Array.from({ length: f.D }, (_, d) => [d]);
    const devNum = devices.map((d) => d.device);
    this.cls = new Uint8Array(N);
    this.peerDev = new Int32Array(N).fill(-1);
    const nodeOf = (d: number) => Math.floor(d / cost.gpusPerNode);
    for (let v = 0; v < N; v++) {
      const k = kind[v];
      if (k === UNIT_SEND) {
        const peer = f.peer[v]!;
        const here = devNum[unitDev[v]!]!;
        this.cls[v] = linkBetween(cost, here, peer) === cost.intraNode ? C_INTRA : C_INTER;
        // Replicas (groups lowered once) are simulated on their representative's index.
        this.peerDev[v] = f.peerIndex[v]!;
      } else if (k === UNIT_COLLECTIVE) {
        const members = f.groupDevices[f.collGroup[v]!]!;
        const n0 = nodeOf(members[0] ?? 0);
        this.cls[v] =
          members.length <= 1 ? C_NONE : members.every((d) => nodeOf(d) === n0) ? C_INTRA : C_INTER;
      } else if (k === UNIT_MEMORY) this.cls[v] = C_HOST;
    }
  }

  /** SM share of a running communication job: its stream's, else by kind (collectives only). */
  smOf(job: number): number {
    const given = this.smOfStream[this.f.unitStream[job]!];
    if (given !== undefined) return given;
    return this.f.kind[job] === UNIT_COLLECTIVE ? DEFAULT_COMM_SM_FRACTION : 0;
  }

  /** The device indices a job occupies: its own, a SEND's peer's too, every member's for a collective. */
  devicesOf(job: number, isComm: boolean): readonly number[] {
    const { kind, unitDev, groupOff, groupUnits, collGroup } = this.f;
    if (!isComm) return this.one[unitDev[job]!]!;
    const k = kind[job];
    if (k === UNIT_SEND) {
      const peer = this.peerDev[job]!;
      return peer >= 0 && peer !== unitDev[job] ? [unitDev[job]!, peer] : this.one[unitDev[job]!]!;
    }
    if (k === UNIT_COLLECTIVE) {
      const g = collGroup[job]!;
      if (groupOff[g + 1]! - groupOff[g]! === 1) return this.one[unitDev[job]!]!;
      const out: number[] = [];
      for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
        const d = unitDev[groupUnits[j]!]!;
        if (!out.includes(d)) out.push(d);
      }
      return out;
    }
    return this.one[unitDev[job]!]!;
  }
}
