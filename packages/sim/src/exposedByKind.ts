/**
 * Exposed communication broken down by kind, as real clusters report it. The event loop keeps
 * the total per device (time some communication is in flight while no compute runs); this keeps
 * the same intervals per kind of communication in flight, an interval counting for every kind.
 * Its own object, made only for a real cluster, so the ideal loop carries none of it.
 */
import { UNIT_COLLECTIVE } from '@stagecraft/ir';
import type { Flat } from './flat.ts';

/** Kinds exposed communication is broken down by (index 0: point to point). */
export const EXPOSED_KINDS = [
  'SEND/RECV',
  'ALL_REDUCE',
  'REDUCE_SCATTER',
  'ALL_GATHER',
  'ALL_TO_ALL',
] as const;

export class ExposedByKind {
  /** Per device index × EXPOSED_KINDS. */
  readonly exposed: Float64Array;
  /** Per device index × EXPOSED_KINDS, the communication of that kind running. */
  private readonly inFlight: Int32Array;
  /** Per collective group, its index in EXPOSED_KINDS (looked up once, not per event). */
  private readonly groupKind: Int32Array;

  /** `now` and `lastT`: the loop's clock and, per device, the time of its last mark. */
  constructor(
    private readonly f: Flat,
    private readonly now: Float64Array,
    private readonly lastT: Float64Array,
  ) {
    const K = EXPOSED_KINDS.length;
    this.exposed = new Float64Array(f.D * K);
    this.inFlight = new Int32Array(f.D * K);
    this.groupKind = new Int32Array(f.groupOp.length);
    for (let g = 0; g < this.groupKind.length; g++) this.groupKind[g] = EXPOSED_KINDS.indexOf(f.groupOp[g]!);
  }

  /** Device d was exposed from its last mark till now: for every kind then in flight. */
  expose(d: number): void {
    const dt = this.now[0]! - this.lastT[d]!;
    const base = d * EXPOSED_KINDS.length;
    for (let c = 0; c < EXPOSED_KINDS.length; c++)
      if (this.inFlight[base + c]! > 0) this.exposed[base + c]! += dt;
  }

  /** Communication unit v starts (+1) or ends (−1) on device d. */
  count(d: number, v: number, dComm: number): void {
    const k = this.f.kind[v] === UNIT_COLLECTIVE ? this.groupKind[this.f.collGroup[v]!]! : 0;
    this.inFlight[d * EXPOSED_KINDS.length + k]! += dComm;
  }
}
