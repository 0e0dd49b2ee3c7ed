/**
 * The event loop's run without events, for the case where time is all it has to find: the ideal
 * cluster (fixed durations, nothing shared), no communication that takes time (exposed
 * communication is then exactly 0) and no timeline kept (the start order is not asked for).
 * There a unit's start is fixed by its dependencies alone, as in a list scheduler: the later of
 * its stream predecessor's release (its end; a RECV's post) and its waits' ends. So each stream is
 * swept in order, advancing while its head's dependencies are known, round after round until
 * every stream is through, with the event loop's rules (eventLoop.ts) carried over:
 * - a RECV is posted at its ready time and releases the next unit of its stream then; it ends at
 *   max(post, its SEND's end);
 * - a collective's members start together when the last one arrives and end `groupDur` later;
 * - every other unit starts when ready and ends `dur` later.
 * Memory is replayed afterwards per device in stream order, which is time order when a device's
 * allocations and frees are all on one stream (the only case taken here): the effects reach
 * MemoryTrack grouped by instant exactly as the event loop reports them.
 *
 * Returns undefined when a precondition fails or the sweep stalls (a deadlock, which the event
 * loop then finds and explains): the caller runs the event loop instead.
 */
import type { ArraySource } from '@stagecraft/ir';
import { UNIT_COLLECTIVE, UNIT_RECV, UNIT_SEND } from '@stagecraft/ir';
import type { Run } from './eventLoop.ts';
import type { Flat } from './flat.ts';
import { MemoryTrack } from './memoryTrack.ts';
import { S_ARRIVED, S_DONE, S_RECV_WAIT } from './unitStates.ts';

/**
 * The run of `f` on the ideal cluster when no communication takes time, or undefined when the
 * sweep cannot stand for the event loop (see above).
 */
export function listSchedule(f: Flat, arrays: ArraySource): Run | undefined {
  const { N } = f;
  const start = arrays.float64(N);
  const end = arrays.float64(N);
  const state = arrays.uint8(N);
  const done = new StreamSweep(f, start, end, state).run();
  if (done < N) return undefined;
  const now = new Float64Array(1);
  const memory = new MemoryTrack(f.plan.devices, false, now);
  if (!replayMemory(f, start, end, memory, now)) return undefined;
  return {
    start,
    end,
    state,
    order: new Int32Array(0),
    started: N,
    done,
    exposed: new Float64Array(f.D),
    peak: memory.peak,
    points: memory.points,
  };
}

/**
 * Each unit's allocation at its start and free at its end, in unit order: on a device's one
 * memory stream a unit starts no earlier than the one before it ends, so times never decrease.
 * False, the replay abandoned, when a device allocates or frees on two of its streams (then
 * unit order is not time order). The check rides on the replay's sweep rather than a sweep of
 * its own before the streams are swept: such a plan is rare, and the sweep it wastes then is
 * cheaper than one more pass over every unit each time.
 */
function replayMemory(
  f: Flat,
  start: Float64Array,
  end: Float64Array,
  memory: MemoryTrack,
  now: Float64Array,
): boolean {
  const { N, kind, allocB, freeB, unitDev, unitStream } = f;
  const streamOf = new Int32Array(f.D).fill(-1);
  for (let v = 0; v < N; v++) {
    const k = kind[v]!;
    // SEND, RECV and collectives neither allocate nor free (the event loop applies no bytes of
    // theirs). Tested inline, not called: a first run interprets this loop.
    if (k === UNIT_RECV || k === UNIT_SEND || k === UNIT_COLLECTIVE) continue;
    const a = allocB[v]!;
    const fr = freeB[v]!;
    if (a === 0 && fr === 0) continue;
    const d = unitDev[v]!;
    const s = unitStream[v]!;
    if (streamOf[d] !== s) {
      if (streamOf[d] !== -1) return false;
      streamOf[d] = s;
    }
    if (a !== 0) {
      now[0] = start[v]!;
      memory.effect(d, 0, a);
    }
    if (fr !== 0) {
      now[0] = end[v]!;
      memory.effect(d, fr, 0);
    }
  }
  for (let d = 0; d < f.D; d++) memory.flush(d);
  return true;
}

/**
 * The sweep's state: a class, not closures per run, so its calls keep one target from run to run
 * (eventLoop.ts says why).
 */
class StreamSweep {
  /** Per stream: the next unit to place and when its predecessor released it. */
  private readonly head: Int32Array;
  private readonly free: Float64Array;
  /** Per collective group: members yet to arrive, and the latest arrival so far. */
  private readonly remaining: Int32Array;
  private readonly arrival: Float64Array;
  private done = 0;

  constructor(
    private readonly f: Flat,
    private readonly start: Float64Array,
    private readonly end: Float64Array,
    private readonly state: Uint8Array,
  ) {
    const { S, streamStart, groupOff, groupDur } = f;
    this.head = new Int32Array(S);
    for (let s = 0; s < S; s++) this.head[s] = streamStart[s]!;
    this.free = new Float64Array(S);
    const G = groupDur.length;
    this.remaining = new Int32Array(G);
    for (let g = 0; g < G; g++) this.remaining[g] = groupOff[g + 1]! - groupOff[g]!;
    this.arrival = new Float64Array(G);
  }

  /** Sweeps the streams until all are through or a round places nothing; returns units done. */
  run(): number {
    const { S, streamStart } = this.f;
    const head = this.head;
    let progressed = true;
    // Rounds alternate direction: data flows both ways along a pipeline (forwards to higher
    // devices, backwards to lower), and a chain against the sweep's direction moves one stream
    // per round. The times do not depend on the order units are placed in.
    let forward = true;
    while (progressed) {
      progressed = false;
      for (let i = 0; i < S; i++) {
        const s = forward ? i : S - 1 - i;
        const last = streamStart[s + 1]!;
        const from = head[s]!;
        let v = from;
        while (v < last && this.place(s, v)) v++;
        if (v !== from) {
          head[s] = v;
          progressed = true;
        }
      }
      forward = !forward;
    }
    return this.done;
  }

  /**
   * Places unit v, the head of stream s, if what it waits for has ended: its times, and the
   * stream's release time for the next unit. False when it must wait (a collective member that
   * arrived waits for the others).
   */
  private place(s: number, v: number): boolean {
    const f = this.f;
    const { waitOff, waitTgt } = f;
    const { state, end } = this;
    let t = this.free[s]!;
    for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) {
      const w = waitTgt[j]!;
      if (state[w] !== S_DONE) return false;
      if (end[w]! > t) t = end[w]!;
    }
    const k = f.kind[v]!;
    if (k === UNIT_RECV) {
      this.start[v] = t;
      const sd = f.partner[v]!;
      if (state[sd] === S_DONE) this.finishRecv(v, sd);
      else state[v] = S_RECV_WAIT;
      // Posted: the stream's next unit may start now.
      this.free[s] = t;
      return true;
    }
    if (k === UNIT_COLLECTIVE) {
      if (state[v] !== S_DONE && state[v] !== S_ARRIVED) this.arrive(v, t);
      if (state[v] !== S_DONE) return false;
      this.free[s] = end[v]!;
      return true;
    }
    this.start[v] = t;
    const e = t + f.dur[v]!;
    end[v] = e;
    state[v] = S_DONE;
    this.done++;
    this.free[s] = e;
    if (k === UNIT_SEND) {
      const r = f.partner[v]!;
      if (r >= 0 && state[r] === S_RECV_WAIT) this.finishRecv(r, v);
    }
    return true;
  }

  /** RECV r, posted, ends with its SEND sd: at the later of its post and the SEND's end. */
  private finishRecv(r: number, sd: number): void {
    const posted = this.start[r]!;
    const e = this.end[sd]!;
    this.end[r] = Math.max(e, posted);
    this.state[r] = S_DONE;
    this.done++;
  }

  /** Collective member v arrives at t; the last to arrive starts the group, which ends together. */
  private arrive(v: number, t: number): void {
    const f = this.f;
    this.state[v] = S_ARRIVED;
    const g = f.collGroup[v]!;
    if (t > this.arrival[g]!) this.arrival[g] = t;
    if (--this.remaining[g]! > 0) return;
    const st = this.arrival[g]!;
    const e = st + f.groupDur[g]!;
    for (let j = f.groupOff[g]!; j < f.groupOff[g + 1]!; j++) {
      const m = f.groupUnits[j]!;
      this.start[m] = st;
      this.end[m] = e;
      this.state[m] = S_DONE;
      this.done++;
    }
  }
}
