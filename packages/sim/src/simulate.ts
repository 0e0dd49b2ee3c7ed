/**
 * Discrete-event simulation of a `stagecraft/plan@2`: one training step on the plan's cluster.
 *
 * Semantics (docs/cost-model.md, "Communication, memory and the simulator", has the full text):
 * - Every device runs its streams concurrently from time 0. An instruction becomes ready when the
 *   instruction before it on its stream has finished (or, for a RECV, been posted) and every id in
 *   its `waits` (same device) has finished. An OVERLAP is one unit whose waits are its own plus
 *   its members'.
 * - Compute, OVERLAP, SEND, OFFLOAD and RELOAD start as soon as they are ready and end after their
 *   cost (costModel.ts). SEND is eager (torch's isend): it does not wait for its RECV.
 * - RECV is posted when ready (torch's irecv): it releases the next instruction of its stream at
 *   once and ends at max(its start, end of the matching SEND), matched by (peer device,
 *   transfer); whatever lists it in `waits` starts after that end.
 * - A collective starts when every member device has reached (is ready at) the instruction with
 *   the same `collective` key; all members end together after the alpha-beta time.
 * - On a real (custom or preset) cluster the loop runs at sharedPace.ts's pace: concurrent jobs
 *   share link bandwidth and compute yields the SM share of running communication (rates change as
 *   jobs start and end); the ideal cluster runs at idealPace.ts's, whose fixed durations keep
 *   closed forms exact.
 * - Memory: each device starts at its resident training state (staticBytes, else paramBytes); allocBytes apply at a unit's start, freeBytes at its
 *   end (OFFLOAD releases `bytes` at its end, RELOAD allocates `bytes` at its start); at equal
 *   times frees apply before allocations.
 * - If events run out with instructions unfinished, the result is an error value naming one wait
 *   cycle (deadlock.ts). Nothing here throws on a well-typed plan.
 *
 * Pipeline: resolveCluster (costModel.ts) → flatten (flat.ts: setup, validation of references)
 * → run (eventLoop.ts, at the cluster's pace; listSchedule.ts's sweep of the streams when only
 * times and peaks are asked for on the ideal cluster) → metrics (below, stepMetrics.ts).
 */
import {
  type ArraySource,
  lend,
  type Plan,
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
} from '@stagecraft/ir';
import { type CostCluster, resolveCluster } from './costModel.ts';
import { findDeadlock } from './deadlock.ts';
import { communicationTakesTime, EventLoop, type Run } from './eventLoop.ts';
import { EXPOSED_KINDS } from './exposedByKind.ts';
import { FinishQueue } from './finishQueue.ts';
import { dispatched, type Flat, flatten, instAt } from './flat.ts';
import { IdealPace } from './idealPace.ts';
import { listSchedule } from './listSchedule.ts';
import { SharedPace } from './sharedPace.ts';
import { gpuFacts, mfuOf, oomWarnings } from './stepMetrics.ts';
import type { DeviceMetrics, SimulateOptions, Simulation, SimulationResult, TimelineEvent } from './types.ts';

export function simulate(plan: Plan, options: SimulateOptions = {}): SimulationResult {
  // The arrays a simulation fills per instruction are lent and given back when it ends: the
  // result holds none of them (it is built of numbers and objects of its own).
  const loan = lend();
  try {
    return simulateWith(plan, options, loan);
  } finally {
    loan.close();
  }
}

function simulateWith(plan: Plan, options: SimulateOptions, arrays: ArraySource): SimulationResult {
  const keep = options.keepTimeline ?? true;
  const resolved = resolveCluster(plan.cluster);
  if (!resolved.ok) return resolved;
  const flat = flatten(plan, resolved.cost, arrays);
  if (!flat.ok) return flat;
  const f = flat.flat;
  const cost = resolved.cost;
  const real = cost.kind === 'custom';
  // Without a timeline, shared resources or communication that takes time, a unit's times follow
  // from its dependencies alone: a sweep of the streams finds them without the event queue.
  const r =
    (!real && !keep && !communicationTakesTime(f) ? listSchedule(f, arrays) : undefined) ??
    eventLoopRun(f, cost, keep, arrays);
  if (r.done < f.N) return findDeadlock(f, r.state);

  const { D } = f;
  const { start, end } = r;
  // A unit's start, from here on, is when its work began: after the runtime issued it.
  if (f.dispatchMs > 0) addDispatchToStarts(f, start);
  // Shared resources stretch compute on a real cluster: busy is what ran, not the nominal cost.
  const busy = real ? measuredBusy(f, start, end) : f.busy;
  const first = new Float64Array(D).fill(Number.POSITIVE_INFINITY);
  const last = new Float64Array(D);
  const makespan = computeSpans(f, start, end, first, last);

  // A device the design leaves unused (group -1) idles the whole step without being a bubble of
  // the schedule: counting it would report a 4-GPU pipeline on an 8-GPU node as half idle.
  let sumIdle = 0;
  let sumBusy = 0;
  let used = 0;
  let sumExposed = 0;
  const perDevice: DeviceMetrics[] = [];
  for (let d = 0; d < D; d++) {
    const b = busy[d]!;
    const fs = first[d] === Number.POSITIVE_INFINITY ? 0 : first[d]!;
    if (plan.devices[d]!.group >= 0) {
      sumBusy += b;
      sumIdle += makespan - b;
      used++;
    }
    sumExposed += r.exposed[d]!;
    perDevice.push({
      device: plan.devices[d]!.device,
      busyMs: b,
      idleMs: makespan - b,
      firstStartMs: fs,
      lastEndMs: last[d]!,
      spanBubbleMs: last[d]! - fs - b,
      peakMemoryBytes: r.peak[d]!,
      peakActivationBytes: r.peak[d]! - (plan.devices[d]!.staticBytes ?? plan.devices[d]!.paramBytes),
      exposedCommMs: r.exposed[d]!,
    });
    const st = plan.devices[d]!.staticBytes;
    if (st !== undefined) perDevice[perDevice.length - 1]!.staticBytes = st;
  }
  const reps = expandReplicas(plan, perDevice);
  sumExposed += reps.exposed;
  const byDevice = perDevice.map((_, i) => i).sort((a, b) => perDevice[a]!.device - perDevice[b]!.device);

  const sim: Simulation = {
    makespanMs: makespan,
    bubbleRatio: used > 0 && makespan > 0 ? sumIdle / (used * makespan) : 0,
    bubbleOverIdeal: sumBusy > 0 ? sumIdle / sumBusy : 0,
    ops: f.ops,
    devices: [...byDevice.map((i) => perDevice[i]!), ...reps.metrics].sort((a, b) => a.device - b.device),
    exposedCommMs: sumExposed,
  };
  if (r.exposedByKind) sim.exposedCommByKindMs = exposedByKind(plan, r.exposedByKind);
  const gpu = gpuFacts(plan.cluster);
  const mfu = mfuOf(plan, makespan, gpu);
  if (mfu !== undefined) sim.mfu = mfu;
  const warnings = oomWarnings(sim.devices, gpu);
  if (warnings.length > 0) sim.warnings = warnings;
  if (keep) {
    sim.timeline = timeline(f, start, end, r.order);
    sim.memory = byDevice.map((d) => ({ device: plan.devices[d]!.device, points: pairs(r.points[d]!) }));
  }
  if (plan.tokensPerStep !== undefined && makespan > 0)
    sim.tokensPerSecond = plan.tokensPerStep / (makespan / 1000);
  return { ok: true, sim };
}

/** The event loop at the cluster's pace: shared resources on a real cluster, fixed on the ideal one. */
function eventLoopRun(f: Flat, cost: CostCluster, keep: boolean, arrays: ArraySource): Run {
  const queue = new FinishQueue(f.N, arrays);
  const real = cost.kind === 'custom';
  const pace = cost.kind === 'custom' ? new SharedPace(f, cost, queue) : new IdealPace(f, queue);
  return new EventLoop(f, queue, pace, { keep, exposedByKind: real, arrays }).run();
}

/** One event per unit, in start order. Each kind is built by one object literal (one shape each). */
function timeline(f: Flat, start: Float64Array, end: Float64Array, order: Int32Array): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  const deviceOf = f.plan.devices.map((d) => d.device);
  for (let j = 0; j < f.N; j++) {
    const v = order[j]!;
    const x = instAt(f, v);
    const device = deviceOf[f.unitDev[v]!]!;
    const stream = f.streamName[f.unitStream[v]!]!;
    const k = f.kind[v];
    if (k === UNIT_COMPUTE)
      out.push({ device, stream, id: x.id, op: x.op, startMs: start[v]!, endMs: end[v]!, tags: x.tags });
    else if (x.op === 'OVERLAP')
      out.push({
        device,
        stream,
        id: x.id,
        op: x.op,
        startMs: start[v]!,
        endMs: end[v]!,
        tags: x.tags,
        members: x.members.map((m) => m.id),
      });
    else if (x.op === 'SEND' || x.op === 'RECV')
      out.push({
        device,
        stream,
        id: x.id,
        op: x.op,
        startMs: start[v]!,
        endMs: end[v]!,
        tags: x.tags,
        peer: x.peer,
        bytes: x.bytes,
      });
    else if (k === UNIT_COLLECTIVE || k === UNIT_MEMORY || k === UNIT_RECV || k === UNIT_SEND)
      out.push({
        device,
        stream,
        id: x.id,
        op: x.op,
        startMs: start[v]!,
        endMs: end[v]!,
        tags: x.tags,
        bytes: (x as { bytes: number }).bytes,
      });
  }
  return out;
}

// Every pass over the units below is a function of its own, as the event loop's is (flat.ts says
// why): done inline, after the loop, these passes ran unoptimised after full collections, 1 to
// 20 ms longer at the bench's target in a process that compiles between simulations.

/** Delays each dispatched unit's start by the dispatch time. */
function addDispatchToStarts(f: Flat, start: Float64Array): void {
  const { N, kind, dispatchMs } = f;
  for (let v = 0; v < N; v++) if (dispatched(kind[v]!)) start[v]! += dispatchMs;
}

/**
 * The step's makespan (the last end); per device, into `first` and `last`, the first start and
 * the last end of its compute and overlap units.
 */
function computeSpans(
  f: Flat,
  start: Float64Array,
  end: Float64Array,
  first: Float64Array,
  last: Float64Array,
): number {
  const { N, kind, unitDev } = f;
  let makespan = 0;
  for (let v = 0; v < N; v++) {
    const e = end[v]!;
    if (e > makespan) makespan = e;
    const k = kind[v];
    if (k !== UNIT_COMPUTE && k !== UNIT_OVERLAP) continue;
    const d = unitDev[v]!;
    if (start[v]! < first[d]!) first[d] = start[v]!;
    if (e > last[d]!) last[d] = e;
  }
  return makespan;
}

/** Σ compute time as it ran (end − start of compute and overlap units), per device. */
function measuredBusy(f: Flat, start: Float64Array, end: Float64Array): Float64Array {
  const busy = new Float64Array(f.D);
  for (let v = 0; v < f.N; v++)
    if (f.kind[v] === UNIT_COMPUTE || f.kind[v] === UNIT_OVERLAP) busy[f.unitDev[v]!]! += end[v]! - start[v]!;
  return busy;
}

/** Metrics of the replicas of each group lowered once: its representative's, under their numbers. */
function expandReplicas(
  plan: Plan,
  perDevice: DeviceMetrics[],
): { metrics: DeviceMetrics[]; exposed: number } {
  const metrics: DeviceMetrics[] = [];
  let exposed = 0;
  plan.devices.forEach((dp, i) => {
    for (const device of dp.replicas ?? []) {
      const m = { ...perDevice[i]!, device };
      metrics.push(m);
      exposed += m.exposedCommMs ?? 0;
    }
  });
  return { metrics, exposed };
}

/** Σ over devices (replicas included) of exposed communication per kind. */
function exposedByKind(plan: Plan, per: Float64Array): Record<string, number> {
  const out: Record<string, number> = {};
  const K = EXPOSED_KINDS.length;
  EXPOSED_KINDS.forEach((name, c) => {
    let sum = 0;
    plan.devices.forEach((dp, d) => {
      sum += per[d * K + c]! * (1 + (dp.replicas?.length ?? 0));
    });
    out[name] = sum;
  });
  return out;
}

function pairs(flat: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}
