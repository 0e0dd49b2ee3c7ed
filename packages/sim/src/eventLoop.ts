/**
 * The event loop, one for every cluster. Each unit counts its unfinished dependencies (stream
 * predecessor + waits); when the count reaches 0 at the current time t the unit is *ready* and
 * starts according to its kind:
 * - compute, OVERLAP, SEND, OFFLOAD, RELOAD: start at t;
 * - RECV: is posted at t, like torch's irecv: the next instruction on its stream may start at t;
 *   the RECV ends at max(t, end of its SEND), and what waits for it starts then;
 * - collective: *arrives* at t; when the last member arrives, all members start together and end
 *   together.
 * How long started work takes is the pace's (pace.ts): fixed on the ideal cluster, shared link
 * bandwidth and SM contention on a real one. Finish events come from a FinishQueue. Because every
 * start is at the current event time, the memory and exposed-communication logs are written in
 * time order and need no sorting. No objects or closures are created per instruction.
 */

import type { ArraySource } from '@stagecraft/ir';
import { UNIT_COLLECTIVE, UNIT_COMPUTE, UNIT_OVERLAP, UNIT_RECV, UNIT_SEND } from '@stagecraft/ir';
import { ExposedByKind } from './exposedByKind.ts';
import type { FinishQueue } from './finishQueue.ts';
import type { Flat } from './flat.ts';
import { MemoryTrack } from './memoryTrack.ts';
import type { Pace } from './pace.ts';
import { S_ARRIVED, S_DONE, S_RECV_WAIT, S_RUNNING } from './unitStates.ts';

export interface Run {
  start: Float64Array;
  end: Float64Array;
  state: Uint8Array;
  /** Units in the order they started (the first `started` entries; empty unless keeping the timeline). */
  order: Int32Array;
  started: number;
  done: number;
  /** Per device index. */
  exposed: Float64Array;
  peak: Float64Array;
  /** Per device index, flat [t0, bytes0, t1, bytes1, ...] when keeping the timeline. */
  points: number[][];
  /** Per device index × EXPOSED_KINDS, exposed communication, when asked for (real clusters). */
  exposedByKind?: Float64Array;
}

export interface LoopOptions {
  /** Keep what the timeline needs: the start order and every memory point. */
  keep: boolean;
  /** Break exposed communication down by kind (EXPOSED_KINDS). */
  exposedByKind: boolean;
  arrays: ArraySource;
}

/**
 * One run of the event loop. A class, not closures made per run: the JIT specialises calls on
 * their target, and closures made afresh by every run would be new targets each time.
 */
export class EventLoop {
  /** Unfinished dependencies of each unit: stream predecessor + waits, counted down. */
  private readonly dep: Int32Array;
  /** Who waits for each unit (CSR): the reverse of the plan's waits. */
  private readonly succOff: Int32Array;
  private readonly succ: Int32Array;
  private readonly start: Float64Array;
  private readonly end: Float64Array;
  private readonly state: Uint8Array;
  /** Per RECV, whether its data was on the wire (its SEND running) while it waited. */
  private readonly wire: Uint8Array;
  private readonly order: Int32Array;
  /** Per collective group, members yet to arrive. */
  private readonly remaining: Int32Array;
  private started = 0;
  private done = 0;
  private readonly keep: boolean;
  /** The pace's, read once: a boolean field, not a property load on the pace per collective. */
  private readonly collectiveIsOneJob: boolean;
  private readonly now: Float64Array;
  // Exposed communication: per device, time with communication in flight and no compute running.
  private readonly compActive: Int32Array;
  private readonly commActive: Int32Array;
  private readonly lastT: Float64Array;
  private readonly exposed: Float64Array;
  /**
   * Whether communication is ever in flight over an interval: not when every SEND and collective
   * takes no time (the ideal cluster without latency), where exposed communication is 0 and the
   * counts behind it need not be kept.
   */
  private readonly exposing: boolean;
  /** The same per kind of communication, on real clusters only (null on the ideal one). */
  private readonly exposedByKind: ExposedByKind | null;
  private readonly memory: MemoryTrack;
  // Units a posted RECV released, with the time it did, taken last in first out (a few at a
  // time: the stack starts small and doubles).
  private postedU = new Int32Array(64);
  private postedT = new Float64Array(64);
  private posted = 0;

  constructor(
    private readonly f: Flat,
    private readonly queue: FinishQueue,
    private readonly pace: Pace,
    { keep, exposedByKind, arrays }: LoopOptions,
  ) {
    const { N, D, groupOff, groupDur } = f;
    this.keep = keep;
    this.collectiveIsOneJob = pace.collectiveIsOneJob;
    this.now = queue.now;
    this.end = queue.end;
    this.dep = dependencyCounts(f, arrays);
    this.succOff = arrays.int32(N + 1);
    this.succ = arrays.int32(f.waitOff[N]!);
    waitersOf(f, this.succOff, this.succ, arrays);
    this.start = arrays.float64(N);
    this.state = arrays.uint8(N);
    this.wire = arrays.uint8(N);
    // Start order is kept for the timeline only.
    this.order = arrays.int32(keep ? N : 0);
    this.remaining = new Int32Array(groupDur.length);
    for (let g = 0; g < this.remaining.length; g++) this.remaining[g] = groupOff[g + 1]! - groupOff[g]!;
    this.compActive = new Int32Array(D);
    this.commActive = new Int32Array(D);
    this.lastT = new Float64Array(D);
    this.exposed = new Float64Array(D);
    this.exposedByKind = exposedByKind ? new ExposedByKind(f, this.now, this.lastT) : null;
    this.exposing = exposedByKind || communicationTakesTime(f);
    this.memory = new MemoryTrack(f.plan.devices, keep, this.now);
  }

  run(): Run {
    const { S, D, streamStart } = this.f;
    // Collect the initially ready first: readying a RECV releases its successor early. Only the
    // first unit of a stream can be: every other one waits for the unit before it.
    const initial = new Int32Array(S);
    let first = 0;
    for (let s = 0; s < S; s++) {
      const v = streamStart[s]!;
      if (v < streamStart[s + 1]! && this.dep[v] === 0) initial[first++] = v;
    }
    this.now[0] = 0;
    for (let j = 0; j < first; j++) this.ready(initial[j]!);
    this.drainPosted();
    this.finishAll();
    for (let d = 0; d < D; d++) this.memory.flush(d);
    const { start, end, state, order, started, done, exposed, memory } = this;
    const r: Run = {
      start,
      end,
      state,
      order,
      started,
      done,
      exposed,
      peak: memory.peak,
      points: memory.points,
    };
    if (this.exposedByKind !== null) r.exposedByKind = this.exposedByKind.exposed;
    return r;
  }

  /**
   * Takes finish events until none is left. A method of its own, with nothing after its loop: a
   * method called once per run is compiled while its loop runs, without feedback for what comes
   * after the loop; such code bailed out there on every run, was dropped at full collections, and
   * the loop then ran unoptimised until compiled again.
   */
  private finishAll(): void {
    const { kind, collGroup } = this.f;
    const { queue, end, state } = this;
    while (queue.size > 0) {
      const v = queue.pop();
      const at = queue.popped[0]!;
      // Stale: left behind when the pace queued the unit again at a new end (its key is no
      // longer the end), or a twin of the entry that already finished it (same key, unit done).
      if (at !== end[v] || state[v] === S_DONE) continue;
      this.now[0] = at;
      const k = kind[v];
      // A RECV is no job of its pace: it ended with its SEND.
      if (k !== UNIT_RECV) this.pace.stop(v);
      if (k === UNIT_COLLECTIVE && this.collectiveIsOneJob) this.completeCollective(collGroup[v]!);
      else this.complete(v);
      this.drainPosted();
    }
  }

  /**
   * At now, device d gains (or with −1, loses) `dComp` running compute and `dComm` running
   * communication; `v`: the communication unit (−1 for compute), for the breakdown by kind.
   */
  private mark(d: number, dComp: number, dComm: number, v: number): void {
    if (!this.exposing) return;
    const t = this.now[0]!;
    if (this.commActive[d]! > 0 && this.compActive[d] === 0) {
      if (this.exposedByKind !== null) this.exposedByKind.expose(d);
      this.exposed[d]! += t - this.lastT[d]!;
    }
    this.lastT[d] = t;
    this.compActive[d]! += dComp;
    this.commActive[d]! += dComm;
    if (dComm !== 0 && v >= 0 && this.exposedByKind !== null) this.exposedByKind.count(d, v, dComm);
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

  /** Marks unit v started now; a collective's members are queued by its pace (startCollective). */
  private begin(v: number): void {
    this.start[v] = this.now[0]!;
    this.state[v] = S_RUNNING;
    if (this.keep) this.order[this.started] = v;
    this.started++;
  }

  /**
   * Starts unit v now and queues it at its end at full rate; its pace may move that end (and
   * queue it again) when it shares resources.
   */
  private launch(v: number): void {
    this.begin(v);
    this.end[v] = this.now[0]! + this.f.dur[v]!;
    this.queue.push(v);
    this.pace.start(v);
  }

  private ready(v: number): void {
    const f = this.f;
    const k = f.kind[v]!;
    const d = f.unitDev[v]!;
    if (k === UNIT_COMPUTE || k === UNIT_OVERLAP) {
      this.mark(d, 1, 0, -1);
      if (f.allocB[v] !== 0) this.memory.effect(d, 0, f.allocB[v]!);
      this.launch(v);
    } else if (k === UNIT_SEND) {
      this.mark(d, 0, 1, v);
      this.launch(v);
      const r = f.partner[v]!;
      if (r >= 0 && this.state[r] === S_RECV_WAIT) {
        this.wire[r] = 1;
        this.mark(f.unitDev[r]!, 0, 1, r);
      }
    } else if (k === UNIT_RECV) {
      const sd = f.partner[v]!;
      this.start[v] = this.now[0]!;
      if (this.keep) this.order[this.started] = v;
      this.started++;
      // Posted: release the stream's next instruction now (queued, not recursed: RECVs come in runs).
      const nx = v + 1;
      if (nx < f.N && f.unitStream[nx] === f.unitStream[v] && --this.dep[nx]! === 0) this.post(nx);
      if (this.state[sd] === S_DONE) {
        this.end[v] = this.now[0]!;
        this.state[v] = S_RUNNING;
        this.queue.push(v);
      } else {
        this.state[v] = S_RECV_WAIT;
        if (this.state[sd] === S_RUNNING) {
          this.wire[v] = 1;
          this.mark(d, 0, 1, v);
        }
      }
    } else if (k === UNIT_COLLECTIVE) {
      this.state[v] = S_ARRIVED;
      const g = f.collGroup[v]!;
      if (--this.remaining[g]! === 0) {
        // All members start now.
        for (let j = f.groupOff[g]!; j < f.groupOff[g + 1]!; j++) {
          const m = f.groupUnits[j]!;
          this.mark(f.unitDev[m]!, 0, 1, m);
          this.begin(m);
        }
        this.pace.startCollective(g);
      }
    } else {
      if (f.allocB[v] !== 0) this.memory.effect(d, 0, f.allocB[v]!);
      this.launch(v);
    }
  }

  /** The pace's job of collective group g ended now: every member ends. */
  private completeCollective(g: number): void {
    const { groupOff, groupUnits } = this.f;
    // Every member ends before any is completed: completing one readies what follows it.
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) this.end[groupUnits[j]!] = this.now[0]!;
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) this.complete(groupUnits[j]!);
  }

  /** Unit v ended now: its device's counts and memory, then whatever it held up. */
  private complete(v: number): void {
    const f = this.f;
    this.state[v] = S_DONE;
    this.done++;
    const k = f.kind[v]!;
    const d = f.unitDev[v]!;
    if (k === UNIT_COMPUTE || k === UNIT_OVERLAP) this.mark(d, -1, 0, -1);
    else if (k === UNIT_SEND) {
      this.mark(d, 0, -1, v);
      const r = f.partner[v]!;
      if (r >= 0 && this.state[r] === S_RECV_WAIT) {
        this.end[r] = this.now[0]!;
        this.state[r] = S_RUNNING;
        this.queue.push(r);
      }
    } else if (k === UNIT_RECV) {
      if (this.wire[v] === 1) this.mark(d, 0, -1, v);
    } else if (k === UNIT_COLLECTIVE) this.mark(d, 0, -1, v);
    // Only compute, OVERLAP and OFFLOAD units free memory (unitTimes.ts gives the others no
    // bytes): the others' are not read.
    if (k !== UNIT_RECV && k !== UNIT_SEND && k !== UNIT_COLLECTIVE && f.freeB[v] !== 0)
      this.memory.effect(d, f.freeB[v]!, 0);
    const next = v + 1;
    const dep = this.dep;
    if (k !== UNIT_RECV && next < f.N && f.unitStream[next] === f.unitStream[v] && --dep[next]! === 0)
      this.ready(next);
    const { succOff, succ } = this;
    for (let j = succOff[v]!; j < succOff[v + 1]!; j++) {
      const x = succ[j]!;
      if (--dep[x]! === 0) this.ready(x);
    }
  }
}

// The loop's own setup, made only when the loop runs (the stream sweep needs neither). Each pass
// over every unit is a function of its own, with nothing after its loop: code compiled while a
// loop of a function called once per simulation runs has no feedback for what follows the loop,
// bails out there on every call and is dropped at full collections, the loops then running
// unoptimised until compiled again (in a process that compiles between simulations, setup took up
// to 20 ms longer at the bench's target).

/** Unfinished dependencies of each unit before the run: stream predecessor + waits. */
function dependencyCounts(f: Flat, arrays: ArraySource): Int32Array {
  const { N, S, streamStart, waitOff } = f;
  const dep = arrays.int32(N);
  for (let st = 0; st < S; st++)
    for (let v = streamStart[st]!; v < streamStart[st + 1]!; v++)
      dep[v] = waitOff[v + 1]! - waitOff[v]! + (v > streamStart[st]! ? 1 : 0);
  return dep;
}

/** Who waits for each unit (CSR, into `succOff` and `succ`): the reverse of the layout's waits. */
function waitersOf(f: Flat, succOff: Int32Array, succ: Int32Array, arrays: ArraySource): void {
  const { N, waitOff, waitTgt } = f;
  const w = waitOff[N]!;
  for (let j = 0; j < w; j++) succOff[waitTgt[j]! + 1]!++;
  for (let v = 0; v < N; v++) succOff[v + 1]! += succOff[v]!;
  // Lent, not sliced: a slice would be fresh memory, zeroed and collected on every run.
  const fill = arrays.int32(N);
  fill.set(succOff.subarray(0, N));
  for (let v = 0; v < N; v++)
    for (let j = waitOff[v]!; j < waitOff[v + 1]!; j++) succ[fill[waitTgt[j]!]!++] = v;
}

/** Whether some SEND or collective of the run takes time (dispatch included). */
export function communicationTakesTime(f: Flat): boolean {
  for (let g = 0; g < f.groupDur.length; g++) if (f.groupDur[g]! > 0) return true;
  const { N, kind, dur } = f;
  for (let v = 0; v < N; v++) if (kind[v] === UNIT_SEND && dur[v]! > 0) return true;
  return false;
}
