/**
 * The event loop. Each unit counts its unfinished dependencies (stream predecessor + waits); when
 * the count reaches 0 at the current time t the unit is *ready* and starts according to its kind:
 * - compute, OVERLAP, SEND, OFFLOAD, RELOAD: start at t, end at t + duration;
 * - RECV: is posted at t, like torch's irecv: the next instruction on its stream may start at t;
 *   the RECV ends at max(t, end of its SEND), and what waits for it starts then;
 * - collective: *arrives* at t; when the last member arrives, all members start together and end
 *   after the group's duration.
 * Finish events sit in a binary min-heap keyed by (end time, unit index). Because every start is
 * at the current event time, the memory and exposed-communication logs are written in time order
 * and need no sorting. No objects or closures are created per instruction.
 *
 * Resource sharing (SM share of communication streams, link contention) will hook in where a unit
 * starts (its end time is computed there) and where it finishes.
 */
import { type ArraySource, FRESH } from '@stagecraft/ir';
import { type Flat, K_COLLECTIVE, K_COMPUTE, K_OVERLAP, K_RECV, K_SEND } from './flat.ts';
import { MemoryTrack } from './memoryTrack.ts';

/** Unit states. */
export const S_BLOCKED = 0;
export const S_RUNNING = 1;
export const S_DONE = 2;
/** A RECV that started and waits for its SEND to end. */
export const S_RECV_WAIT = 3;
/** A collective member that reached the collective and waits for the other members. */
export const S_ARRIVED = 4;

export interface Run {
  start: Float64Array;
  end: Float64Array;
  state: Uint8Array;
  /** Units in the order they started (the first `started` entries). */
  order: Int32Array;
  started: number;
  done: number;
  /** Per device index. */
  exposed: Float64Array;
  peak: Float64Array;
  /** Per device index, flat [t0, bytes0, t1, bytes1, ...] when keeping the timeline. */
  points: number[][];
  /** Per device index × kind (sharedEngine's EXPOSED_KINDS), exposed communication (real clusters). */
  exposedByKind?: Float64Array;
}

export function run(f: Flat, keep: boolean, arrays: ArraySource = FRESH): Run {
  return new IdealRun(f, keep, arrays).result();
}

/**
 * One run of the event loop. A class, not closures made per run: the JIT specialises calls on
 * their target, and closures made afresh by every run would be new targets each time.
 */
class IdealRun {
  private readonly dep: Int32Array;
  private readonly start: Float64Array;
  private readonly end: Float64Array;
  private readonly state: Uint8Array;
  private readonly wire: Uint8Array;
  private readonly order: Int32Array;
  private readonly remaining: Int32Array;
  private started = 0;
  private done = 0;
  /**
   * The time of the event being handled. Times cross no call as an argument: a double passed
   * to a call that is not inlined is boxed, once per instruction.
   */
  private readonly now = new Float64Array(1);
  // Binary min-heap of finish events: unit and its key (end time), ties broken by unit index.
  // It holds the units running at once, a few per stream: it starts small and doubles.
  private heapU: Int32Array;
  private heapK: Float64Array;
  private hn = 0;
  // Exposed communication: per device, time with communication in flight and no compute running.
  private readonly compActive: Int32Array;
  private readonly commActive: Int32Array;
  private readonly lastT: Float64Array;
  private readonly exposed: Float64Array;
  private readonly memory: MemoryTrack;
  // Units a posted RECV released, with the time it did, taken last in first out (a few at a
  // time: the stack starts small and doubles).
  private postedU = new Int32Array(64);
  private postedT = new Float64Array(64);
  private posted = 0;

  constructor(
    private readonly f: Flat,
    private readonly keep: boolean,
    arrays: ArraySource,
  ) {
    const { N, D, groupOff, groupDur } = f;
    this.dep = arrays.int32(N);
    this.dep.set(f.dep);
    this.start = arrays.float64(N);
    this.end = arrays.float64(N);
    this.state = arrays.uint8(N);
    this.wire = arrays.uint8(N);
    // Start order is kept for the timeline only.
    this.order = arrays.int32(keep ? N : 0);
    this.remaining = new Int32Array(groupDur.length);
    for (let g = 0; g < this.remaining.length; g++) this.remaining[g] = groupOff[g + 1]! - groupOff[g]!;
    this.heapU = new Int32Array(Math.min(N, 256) + 1);
    this.heapK = new Float64Array(this.heapU.length);
    this.compActive = new Int32Array(D);
    this.commActive = new Int32Array(D);
    this.lastT = new Float64Array(D);
    this.exposed = new Float64Array(D);
    this.memory = new MemoryTrack(f.plan.devices, keep, this.now);
  }

  result(): Run {
    const { N, D } = this.f;
    const dep = this.dep;
    // Collect the initially ready first: readying a RECV releases its successor early.
    let first = 0;
    for (let v = 0; v < N; v++) if (dep[v] === 0) first++;
    const initial = new Int32Array(first);
    first = 0;
    for (let v = 0; v < N; v++) if (dep[v] === 0) initial[first++] = v;
    this.now[0] = 0;
    for (let j = 0; j < initial.length; j++) this.ready(initial[j]!);
    this.drainPosted();
    while (this.hn > 0) {
      this.finish(this.pop());
      this.drainPosted();
    }
    for (let d = 0; d < D; d++) this.memory.flush(d);
    const { start, end, state, order, started, done, exposed, memory } = this;
    return { start, end, state, order, started, done, exposed, peak: memory.peak, points: memory.points };
  }

  /** Queues unit v to finish at end[v]. */
  private push(v: number): void {
    if (this.hn === this.heapU.length) {
      const u2 = new Int32Array(2 * this.hn);
      u2.set(this.heapU);
      this.heapU = u2;
      const k2 = new Float64Array(2 * this.hn);
      k2.set(this.heapK);
      this.heapK = k2;
    }
    const heapU = this.heapU;
    const heapK = this.heapK;
    const key = this.end[v]!;
    let i = this.hn++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pk = heapK[p]!;
      if (pk < key || (pk === key && heapU[p]! < v)) break;
      heapU[i] = heapU[p]!;
      heapK[i] = pk;
      i = p;
    }
    heapU[i] = v;
    heapK[i] = key;
  }

  private pop(): number {
    const heapU = this.heapU;
    const heapK = this.heapK;
    const top = heapU[0]!;
    const hn = --this.hn;
    const lu = heapU[hn]!;
    const lk = heapK[hn]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= hn) break;
      let ck = heapK[c]!;
      const r = c + 1;
      if (r < hn) {
        const rk = heapK[r]!;
        if (rk < ck || (rk === ck && heapU[r]! < heapU[c]!)) {
          c = r;
          ck = rk;
        }
      }
      if (lk < ck || (lk === ck && lu < heapU[c]!)) break;
      heapU[i] = heapU[c]!;
      heapK[i] = ck;
      i = c;
    }
    heapU[i] = lu;
    heapK[i] = lk;
    return top;
  }

  private mark(d: number, dComp: number, dComm: number): void {
    const t = this.now[0]!;
    if (this.commActive[d]! > 0 && this.compActive[d] === 0) this.exposed[d]! += t - this.lastT[d]!;
    this.lastT[d] = t;
    this.compActive[d]! += dComp;
    this.commActive[d]! += dComm;
  }

  private post(v: number): void {
    if (this.posted === this.postedU.length) {
      const u2 = new Int32Array(2 * this.posted);
      u2.set(this.postedU);
      this.postedU = u2;
      const t2 = new Float64Array(2 * this.posted);
      t2.set(this.postedT);
      this.postedT = t2;
    }
    this.postedU[this.posted] = v;
    this.postedT[this.posted++] = this.now[0]!;
  }

  private drainPosted(): void {
    while (this.posted > 0) {
      this.posted--;
      this.now[0] = this.postedT[this.posted]!;
      this.ready(this.postedU[this.posted]!);
    }
  }

  /** Starts unit v now, to end at `end` (now + its duration, unless given). */
  private begin(v: number, duration: number): void {
    const t = this.now[0]!;
    this.start[v] = t;
    this.end[v] = t + duration;
    this.state[v] = S_RUNNING;
    if (this.keep) this.order[this.started] = v;
    this.started++;
    this.push(v);
  }

  private ready(v: number): void {
    const f = this.f;
    const k = f.kind[v]!;
    const d = f.unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) {
      this.mark(d, 1, 0);
      if (f.allocB[v] !== 0) this.memory.effect(d, 0, f.allocB[v]!);
      this.begin(v, f.dur[v]!);
    } else if (k === K_SEND) {
      this.mark(d, 0, 1);
      this.begin(v, f.dur[v]!);
      const r = f.recvOf[v]!;
      if (this.state[r] === S_RECV_WAIT) {
        this.wire[r] = 1;
        this.mark(f.unitDev[r]!, 0, 1);
      }
    } else if (k === K_RECV) {
      const sd = f.sendOf[v]!;
      this.start[v] = this.now[0]!;
      if (this.keep) this.order[this.started] = v;
      this.started++;
      // Posted: release the stream's next instruction now (queued, not recursed: RECVs come in runs).
      const nx = v + 1;
      if (nx < f.N && f.unitStream[nx] === f.unitStream[v] && --this.dep[nx]! === 0) this.post(nx);
      if (this.state[sd] === S_DONE) {
        this.end[v] = this.now[0]!;
        this.state[v] = S_RUNNING;
        this.push(v);
      } else {
        this.state[v] = S_RECV_WAIT;
        if (this.state[sd] === S_RUNNING) {
          this.wire[v] = 1;
          this.mark(d, 0, 1);
        }
      }
    } else if (k === K_COLLECTIVE) {
      this.state[v] = S_ARRIVED;
      const g = f.collGroup[v]!;
      if (--this.remaining[g]! === 0) {
        // All members start now and end together.
        for (let j = f.groupOff[g]!; j < f.groupOff[g + 1]!; j++) {
          const m = f.groupUnits[j]!;
          this.mark(f.unitDev[m]!, 0, 1);
          this.begin(m, f.groupDur[g]!);
        }
      }
    } else {
      if (f.allocB[v] !== 0) this.memory.effect(d, 0, f.allocB[v]!);
      this.begin(v, f.dur[v]!);
    }
  }

  private finish(v: number): void {
    const f = this.f;
    this.now[0] = this.end[v]!;
    this.state[v] = S_DONE;
    this.done++;
    const k = f.kind[v]!;
    const d = f.unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) this.mark(d, -1, 0);
    else if (k === K_SEND) {
      this.mark(d, 0, -1);
      const r = f.recvOf[v]!;
      if (this.state[r] === S_RECV_WAIT) {
        this.end[r] = this.now[0]!;
        this.state[r] = S_RUNNING;
        this.push(r);
      }
    } else if (k === K_RECV) {
      if (this.wire[v] === 1) this.mark(d, 0, -1);
    } else if (k === K_COLLECTIVE) this.mark(d, 0, -1);
    if (f.freeB[v] !== 0) this.memory.effect(d, f.freeB[v]!, 0);
    const next = v + 1;
    const dep = this.dep;
    if (k !== K_RECV && next < f.N && f.unitStream[next] === f.unitStream[v] && --dep[next]! === 0)
      this.ready(next);
    const { succOff, succ } = f;
    for (let j = succOff[v]!; j < succOff[v + 1]!; j++) {
      const x = succ[j]!;
      if (--dep[x]! === 0) this.ready(x);
    }
  }
}
