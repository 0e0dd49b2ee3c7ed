/**
 * The finish events of a run: a binary min-heap keyed by (end time, unit index), the index
 * breaking ties so that equal times always finish in the same order. Typed arrays, not objects:
 * a run queues one event per instruction and must allocate nothing per event.
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
  // Units running at once, a few per stream: the heap starts small and doubles.
  private units: Int32Array;
  private keys: Float64Array;
  size = 0;

  constructor(n: number, arrays: ArraySource) {
    this.end = arrays.float64(n);
    this.units = new Int32Array(Math.min(n, 256) + 1);
    this.keys = new Float64Array(this.units.length);
  }

  /** Queues unit v to finish at end[v]. */
  push(v: number): void {
    if (this.size === this.units.length) this.grow();
    const units = this.units;
    const keys = this.keys;
    const key = this.end[v]!;
    let i = this.size++;
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

  /** Takes the earliest entry: returns its unit and leaves its key in `popped[0]`. */
  pop(): number {
    const units = this.units;
    const keys = this.keys;
    const top = units[0]!;
    this.popped[0] = keys[0]!;
    const n = --this.size;
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
    const units = new Int32Array(2 * this.size);
    units.set(this.units);
    this.units = units;
    const keys = new Float64Array(2 * this.size);
    keys.set(this.keys);
    this.keys = keys;
  }
}
