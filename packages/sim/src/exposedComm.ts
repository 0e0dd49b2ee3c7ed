/**
 * Exposed communication: per device, the time some communication is in flight while no compute
 * runs, the part of communication that overlapping did not hide. The event loop reports every
 * start and end of work on a device as it happens, in time order, so the time since the last
 * report is added to the device's exposed time whenever it had communication and no compute.
 */
import { type Flat, K_COLLECTIVE } from './flat.ts';

/** Kinds exposed communication is broken down by (index 0: point to point). */
export const EXPOSED_KINDS = [
  'SEND/RECV',
  'ALL_REDUCE',
  'REDUCE_SCATTER',
  'ALL_GATHER',
  'ALL_TO_ALL',
] as const;

export class ExposedComm {
  /** Per device index. */
  readonly exposed: Float64Array;
  protected readonly compActive: Int32Array;
  protected readonly commActive: Int32Array;
  protected readonly lastT: Float64Array;

  constructor(
    protected readonly f: Flat,
    protected readonly now: Float64Array,
  ) {
    const D = f.D;
    this.exposed = new Float64Array(D);
    this.compActive = new Int32Array(D);
    this.commActive = new Int32Array(D);
    this.lastT = new Float64Array(D);
  }

  /**
   * At `now`, device d gains (or with −1, loses) `dComp` running compute and `dComm` running
   * communication; `v` is the communication unit (−1 for compute), for the per-kind breakdown.
   */
  mark(d: number, dComp: number, dComm: number, _v: number): void {
    const t = this.now[0]!;
    if (this.commActive[d]! > 0 && this.compActive[d] === 0) this.exposed[d]! += t - this.lastT[d]!;
    this.lastT[d] = t;
    this.compActive[d]! += dComp;
    this.commActive[d]! += dComm;
  }
}

/**
 * Exposed communication broken down by kind as well (real clusters report it): an interval
 * counts for every kind in flight. A subclass, chosen once per run, so that the ideal cluster's
 * loop inlines the plain `mark` above and pays nothing for a breakdown it does not report.
 */
export class ExposedCommByKind extends ExposedComm {
  /** Per device index × EXPOSED_KINDS. */
  readonly byKind: Float64Array;
  /** Per device index × EXPOSED_KINDS, the communication of that kind running. */
  private readonly inFlight: Int32Array;
  /** Per collective group, its index in EXPOSED_KINDS (looked up once, not per event). */
  private readonly groupKind: Int32Array;

  constructor(f: Flat, now: Float64Array) {
    super(f, now);
    const K = EXPOSED_KINDS.length;
    this.byKind = new Float64Array(f.D * K);
    this.inFlight = new Int32Array(f.D * K);
    this.groupKind = new Int32Array(f.groupOp.length);
    for (let g = 0; g < this.groupKind.length; g++) this.groupKind[g] = EXPOSED_KINDS.indexOf(f.groupOp[g]!);
  }

  override mark(d: number, dComp: number, dComm: number, v: number): void {
    // Before the counts change: the interval since the last mark had the kinds in flight till now.
    if (this.commActive[d]! > 0 && this.compActive[d] === 0) {
      const dt = this.now[0]! - this.lastT[d]!;
      const base = d * EXPOSED_KINDS.length;
      for (let c = 0; c < EXPOSED_KINDS.length; c++)
        if (this.inFlight[base + c]! > 0) this.byKind[base + c]! += dt;
    }
    super.mark(d, dComp, dComm, v);
    if (dComm !== 0 && v >= 0) this.inFlight[d * EXPOSED_KINDS.length + this.kindOf(v)]! += dComm;
  }

  private kindOf(v: number): number {
    return this.f.kind[v] === K_COLLECTIVE ? this.groupKind[this.f.collGroup[v]!]! : 0;
  }
}
