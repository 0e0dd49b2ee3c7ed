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

export function run(f: Flat, keep: boolean): Run {
  const { N, D, kind, dur, allocB, freeB, unitDev, unitStream, succOff, succ, sendOf, recvOf, collGroup } = f;
  const { groupOff, groupUnits, groupDur } = f;
  const dep = f.dep.slice();
  const start = new Float64Array(N);
  const end = new Float64Array(N);
  const state = new Uint8Array(N);
  const wire = new Uint8Array(N);
  // Start order is kept for the timeline only.
  const order = new Int32Array(keep ? N : 0);
  const remaining = new Int32Array(groupDur.length);
  for (let g = 0; g < remaining.length; g++) remaining[g] = groupOff[g + 1]! - groupOff[g]!;
  let started = 0;
  let done = 0;
  // The time of the event being handled. Times cross no call as an argument or a closure
  // variable: a double passed or captured that way is boxed, once per instruction.
  const now = new Float64Array(1);

  // Binary min-heap of finish events: unit and its key (end time), ties broken by unit index.
  // It holds the units running at once, a few per stream: it starts small and doubles.
  let heapU = new Int32Array(Math.min(N, 256) + 1);
  let heapK = new Float64Array(heapU.length);
  let hn = 0;
  /** Queues unit v to finish at end[v]. */
  const push = (v: number) => {
    if (hn === heapU.length) {
      const u2 = new Int32Array(2 * hn);
      u2.set(heapU);
      heapU = u2;
      const k2 = new Float64Array(2 * hn);
      k2.set(heapK);
      heapK = k2;
    }
    const key = end[v]!;
    let i = hn++;
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
  };
  const pop = (): number => {
    const top = heapU[0]!;
    const lu = heapU[--hn]!;
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
  };

  // Exposed communication: per device, time with communication in flight and no compute running.
  const compActive = new Int32Array(D);
  const commActive = new Int32Array(D);
  const lastT = new Float64Array(D);
  const exposed = new Float64Array(D);
  const mark = (d: number, dComp: number, dComm: number) => {
    const t = now[0]!;
    if (commActive[d]! > 0 && compActive[d] === 0) exposed[d]! += t - lastT[d]!;
    lastT[d] = t;
    compActive[d]! += dComp;
    commActive[d]! += dComm;
  };

  const memory = new MemoryTrack(f.plan.devices, keep, now);

  // Units a posted RECV released, with the time it did, taken last in first out (a few at a
  // time: the stack starts small and doubles).
  let postedU = new Int32Array(64);
  let postedT = new Float64Array(64);
  let posted = 0;
  const post = (v: number) => {
    if (posted === postedU.length) {
      const u2 = new Int32Array(2 * posted);
      u2.set(postedU);
      postedU = u2;
      const t2 = new Float64Array(2 * posted);
      t2.set(postedT);
      postedT = t2;
    }
    postedU[posted] = v;
    postedT[posted++] = now[0]!;
  };
  /** Starts unit v now, to end after `dur[v]`. */
  const begin = (v: number) => {
    const t = now[0]!;
    start[v] = t;
    end[v] = t + dur[v]!;
    state[v] = S_RUNNING;
    if (keep) order[started] = v;
    started++;
    push(v);
  };

  const ready = (v: number) => {
    const k = kind[v]!;
    const d = unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) {
      mark(d, 1, 0);
      if (allocB[v] !== 0) memory.effect(d, 0, allocB[v]!);
      begin(v);
    } else if (k === K_SEND) {
      mark(d, 0, 1);
      begin(v);
      const r = recvOf[v]!;
      if (state[r] === S_RECV_WAIT) {
        wire[r] = 1;
        mark(unitDev[r]!, 0, 1);
      }
    } else if (k === K_RECV) {
      const sd = sendOf[v]!;
      start[v] = now[0]!;
      if (keep) order[started] = v;
      started++;
      // Posted: release the stream's next instruction now (queued, not recursed: RECVs come in runs).
      const nx = v + 1;
      if (nx < N && unitStream[nx] === unitStream[v] && --dep[nx]! === 0) post(nx);
      if (state[sd] === S_DONE) {
        end[v] = now[0]!;
        state[v] = S_RUNNING;
        push(v);
      } else {
        state[v] = S_RECV_WAIT;
        if (state[sd] === S_RUNNING) {
          wire[v] = 1;
          mark(d, 0, 1);
        }
      }
    } else if (k === K_COLLECTIVE) {
      state[v] = S_ARRIVED;
      const g = collGroup[v]!;
      if (--remaining[g]! === 0) {
        // All members start now and end together.
        for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
          const m = groupUnits[j]!;
          mark(unitDev[m]!, 0, 1);
          start[m] = now[0]!;
          end[m] = now[0]! + groupDur[g]!;
          state[m] = S_RUNNING;
          if (keep) order[started] = m;
          started++;
          push(m);
        }
      }
    } else {
      if (allocB[v] !== 0) memory.effect(d, 0, allocB[v]!);
      begin(v);
    }
  };

  const finish = (v: number) => {
    now[0] = end[v]!;
    state[v] = S_DONE;
    done++;
    const k = kind[v]!;
    const d = unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) mark(d, -1, 0);
    else if (k === K_SEND) {
      mark(d, 0, -1);
      const r = recvOf[v]!;
      if (state[r] === S_RECV_WAIT) {
        end[r] = now[0]!;
        state[r] = S_RUNNING;
        push(r);
      }
    } else if (k === K_RECV) {
      if (wire[v] === 1) mark(d, 0, -1);
    } else if (k === K_COLLECTIVE) mark(d, 0, -1);
    if (freeB[v] !== 0) memory.effect(d, freeB[v]!, 0);
    const next = v + 1;
    if (k !== K_RECV && next < N && unitStream[next] === unitStream[v] && --dep[next]! === 0) ready(next);
    for (let j = succOff[v]!; j < succOff[v + 1]!; j++) {
      const x = succ[j]!;
      if (--dep[x]! === 0) ready(x);
    }
  };

  const drainPosted = () => {
    while (posted > 0) {
      posted--;
      now[0] = postedT[posted]!;
      ready(postedU[posted]!);
    }
  };
  // Collect the initially ready first: readying a RECV releases its successor early.
  let first = 0;
  for (let v = 0; v < N; v++) if (dep[v] === 0) first++;
  const initial = new Int32Array(first);
  first = 0;
  for (let v = 0; v < N; v++) if (dep[v] === 0) initial[first++] = v;
  now[0] = 0;
  for (let j = 0; j < initial.length; j++) ready(initial[j]!);
  drainPosted();
  while (hn > 0) {
    finish(pop());
    drainPosted();
  }
  for (let d = 0; d < D; d++) memory.flush(d);

  return { start, end, state, order, started, done, exposed, peak: memory.peak, points: memory.points };
}
