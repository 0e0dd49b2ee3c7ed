/**
 * Allocated bytes of every device over time, as the event loop tracks them. The frees and
 * allocations of one device at one instant form a group, frees first, so an op that frees a
 * stash as another allocates one at the same time shows no peak that never existed.
 */
import type { DevicePlan } from '@stagecraft/ir';

export class MemoryTrack {
  /** Peak bytes per device, static state included. */
  readonly peak: Float64Array;
  /** Per device, [time, bytes, time, bytes, …] when kept; each point holds from its time on. */
  readonly points: number[][];
  private readonly mem: Float64Array;
  private readonly at: Float64Array;
  private readonly pendingFree: Float64Array;
  private readonly pendingAlloc: Float64Array;

  /**
   * `now[0]`: the time of the effects being reported. The event loop keeps its clock there, so that no
   * double is passed per effect (a double argument is boxed unless the call is inlined).
   */
  constructor(
    devices: readonly Pick<DevicePlan, 'paramBytes' | 'staticBytes'>[],
    private readonly keep: boolean,
    private readonly now: Float64Array,
  ) {
    const n = devices.length;
    this.mem = new Float64Array(n);
    this.peak = new Float64Array(n);
    this.at = new Float64Array(n);
    this.pendingFree = new Float64Array(n);
    this.pendingAlloc = new Float64Array(n);
    this.points = [];
    for (let d = 0; d < n; d++) {
      const dp = devices[d]!;
      this.mem[d] = this.peak[d] = dp.staticBytes ?? dp.paramBytes;
      this.points.push(keep ? [0, this.mem[d]!] : []);
    }
  }

  /** `free` and `alloc` bytes on device `d` at time `now[0]` (times never decrease per device). */
  effect(d: number, free: number, alloc: number): void {
    const t = this.now[0]!;
    if (t !== this.at[d]) {
      this.flush(d);
      this.at[d] = t;
    }
    this.pendingFree[d]! += free;
    this.pendingAlloc[d]! += alloc;
  }

  /** Closes the open group of device `d`; call for every device when the simulation ends. */
  flush(d: number): void {
    const free = this.pendingFree[d]!;
    const alloc = this.pendingAlloc[d]!;
    if (free === 0 && alloc === 0) return;
    const cur = this.mem[d]! - free + alloc;
    this.mem[d] = cur;
    if (cur > this.peak[d]!) this.peak[d] = cur;
    if (this.keep) {
      const pts = this.points[d]!;
      // One point per time: a group at t = 0 replaces the starting point.
      if (pts[pts.length - 2] === this.at[d]) pts[pts.length - 1] = cur;
      else pts.push(this.at[d]!, cur);
    }
    this.pendingFree[d] = this.pendingAlloc[d] = 0;
  }
}
