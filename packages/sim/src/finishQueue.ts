/**
 * The finish events of a run, taken in order of (end time, unit index), the index breaking ties
 * so that equal times always finish in the same order. Typed arrays, not objects: a run queues
 * one event per instruction and must allocate nothing per event.
 *
 * Most units of a pipeline end the instant they start (a RECV whose SEND is done, a SEND on a
 * link that takes no time, every communication on the ideal cluster): two in three at the bench's
 * target. They wait in a *lane*, entries of one key ordered by unit alone, beside a binary
 * min-heap keyed by (end, unit) for the rest; `pop` takes the lesser of the two heads, so the
 * order is exactly one heap's, at a fraction of its comparisons (a lane of a few units, integer
 * keys).
 *
 * A unit is queued under its `end`. A pace whose rates change (shared bandwidth) writes a new end
 * and queues the unit again; the entry left behind no longer matches the unit's end and the event
 * loop skips it when it surfaces, so no entry is ever searched for and removed.
 */
import type { ArraySource } from '@stagecraft/ir';

export class FinishQueue {
  /** Per unit, the time it ends (or, running, is expected to end): the key it is queued under. */
  readonly end: Float64Array;
  /**
   * The time of the event being handled. Times cross no call as an argument: a double passed to a
   * call that is not inlined is boxed, once per instruction.
   */
  readonly now = new Float64Array(1);
  /** The key of the entry `pop` took last. */
  readonly popped = new Float64Array(1);
  /** Entries queued, lane and heap. */
  size = 0;
  // Units running at once, a few per stream: the heap starts small and doubles.
  private units: Int32Array;
  private keys: Float64Array;
  private heapSize = 0;
  /** Units queued under the key `laneKey` (a min-heap of unit indices), when `laneSize` > 0. */
  private lane = new Int32Array(64);
  private laneSize = 0;
  private laneKey = 0;

  constructor(n: number, arrays: ArraySource) {
    this.end = arrays.float64(n);
    this.units = new Int32Array(Math.min(n, 256) + 1);
    this.keys = new Float64Array(this.units.length);
  }

  /** Queues unit v to finish at end[v]. */
  push(v: number): void {
    this.size++;
    const key = this.end[v]!;
    if (this.laneSize > 0 ? key === this.laneKey : key === this.now[0]) {
      this.laneKey = key;
      this.pushLane(v);
    } else this.pushHeap(v, key);
  }

  /** Takes the earliest entry: returns its unit and leaves its key in `popped[0]`. */
  pop(): number {
    this.size--;
    if (this.laneSize > 0) {
      const u = this.lane[0]!;
      const k = this.laneKey;
      if (this.heapSize === 0 || this.keys[0]! > k || (this.keys[0] === k && this.units[0]! > u)) {
        this.popped[0] = k;
        this.popLane();
        return u;
      }
    }
    return this.popHeap();
  }

  private pushLane(v: number): void {
    if (this.laneSize === this.lane.length) {
      const lane = new Int32Array(2 * this.laneSize);
      lane.set(this.lane);
      this.lane = lane;
    }
    const lane = this.lane;
    let i = this.laneSize++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pu = lane[p]!;
      if (pu < v) break;
      lane[i] = pu;
      i = p;
    }
    lane[i] = v;
  }

  private popLane(): void {
    const lane = this.lane;
    const n = --this.laneSize;
    const lu = lane[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let cu = lane[c]!;
      if (c + 1 < n && lane[c + 1]! < cu) cu = lane[++c]!;
      if (lu < cu) break;
      lane[i] = cu;
      i = c;
    }
    lane[i] = lu;
  }

  private pushHeap(v: number, key: number): void {
    if (this.heapSize === this.units.length) this.grow();
    const units = this.units;
    const keys = this.keys;
    let i = this.heapSize++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pk = keys[p]!;
      if (pk < key || (pk === key && units[p]! < v)) break;
      units[i] = units[p]!;
      keys[i] = pk;
      i = p;
    }
    units[i] = v;
    keys[i] = key;
  }

  private popHeap(): number {
    const units = this.units;
    const keys = this.keys;
    const top = units[0]!;
    this.popped[0] = keys[0]!;
    const n = --this.heapSize;
    const lu = units[n]!;
    const lk = keys[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let ck = keys[c]!;
      const r = c + 1;
      if (r < n) {
        const rk = keys[r]!;
        if (rk < ck || (rk === ck && units[r]! < units[c]!)) {
          c = r;
          ck = rk;
        }
      }
      if (lk < ck || (lk === ck && lu < units[c]!)) break;
      units[i] = units[c]!;
      keys[i] = ck;
      i = c;
    }
    units[i] = lu;
    keys[i] = lk;
    return top;
  }

  private grow(): void {
    const units = new Int32Array(2 * this.heapSize);
    units.set(this.units);
    this.units = units;
    const keys = new Float64Array(2 * this.heapSize);
    keys.set(this.keys);
    this.keys = keys;
  }
}
