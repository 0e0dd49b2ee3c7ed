/**
 * The event loop on a real cluster, where concurrent work shares resources. Same semantics as
 * engine.ts (readiness, posted RECVs, collectives starting when every member arrived, memory),
 * but every running job progresses at a rate that changes whenever what runs beside it changes:
 * - a communication job (a SEND, a collective, an OFFLOAD/RELOAD) uses one link class on each
 *   device it touches: intra-node (NVLink), inter-node (InfiniBand) or host (PCIe). Jobs on the
 *   same device and class share it equally; a job spanning devices goes at its slowest share;
 * - a compute job runs at 1 − (Σ SM share of the communication kernels running on its device),
 *   never below MIN_COMPUTE_RATE; communication takes its stream's `smFraction`, by default
 *   DEFAULT_COMM_SM_FRACTION for a collective (NCCL's ring channels, one SM each) and none for a
 *   SEND/RECV (one channel per peer) or a copy to or from the host (copy engines).
 * A job's time at rate 1 is its cost-model time (latency included: the whole transfer stretches).
 * Finish events sit in a min-heap with a version per job, so a job whose rate changed leaves a
 * stale entry behind that is skipped when it surfaces.
 */
import { type CostCluster, linkBetween } from './costModel.ts';
import { type Run, S_ARRIVED, S_DONE, S_RECV_WAIT, S_RUNNING } from './engine.ts';
import { type Flat, K_COLLECTIVE, K_COMPUTE, K_MEMORY, K_OVERLAP, K_RECV, K_SEND } from './flat.ts';
import { MemoryTrack } from './memoryTrack.ts';

export const DEFAULT_COMM_SM_FRACTION = 0.1;
/** Kinds exposed communication is broken down by (index 0: point to point). */
export const EXPOSED_KINDS = [
  'SEND/RECV',
  'ALL_REDUCE',
  'REDUCE_SCATTER',
  'ALL_GATHER',
  'ALL_TO_ALL',
] as const;
export const MIN_COMPUTE_RATE = 0.05;

const C_NONE = 0;
const C_INTRA = 1;
const C_INTER = 2;
const C_HOST = 3;

export function runShared(f: Flat, keep: boolean, cost: CostCluster & { kind: 'custom' }): Run {
  const { N, D, kind, dur, allocB, freeB, unitDev, unitStream, succOff, succ, sendOf, recvOf, collGroup } = f;
  const { groupOff, groupUnits, groupDur } = f;
  const dep = f.dep.slice();
  const start = new Float64Array(N);
  const end = new Float64Array(N);
  const state = new Uint8Array(N);
  const wire = new Uint8Array(N);
  const order = new Int32Array(N);
  const remaining = new Int32Array(groupDur.length);
  for (let g = 0; g < remaining.length; g++) remaining[g] = groupOff[g + 1]! - groupOff[g]!;
  let started = 0;
  let done = 0;

  // --- per job: class, SM share, devices it touches --------------------------------------------
  const devNum = f.plan.devices.map((d) => d.device);
  const smOfStream = f.streamName.map((_, s) => {
    const sp = f.plan.devices[f.streamDev[s]!]!.streams[f.streamLocal[s]!]!;
    return sp.smFraction;
  });
  /** SM share of a running communication job: its stream's, else by kind (collectives only). */
  const smOf = (j: number): number => {
    const given = smOfStream[unitStream[j]!];
    if (given !== undefined) return given;
    return kind[j] === K_COLLECTIVE ? DEFAULT_COMM_SM_FRACTION : 0;
  };
  const devIndex = new Map<number, number>();
  f.plan.devices.forEach((d, i) => {
    devIndex.set(d.device, i);
    for (const r of d.replicas ?? []) devIndex.set(r, i);
  });
  const cls = new Uint8Array(N);
  const peerDev = new Int32Array(N).fill(-1);
  const nodeOf = (d: number) => Math.floor(d / cost.gpusPerNode);
  for (let v = 0; v < N; v++) {
    const k = kind[v];
    if (k === K_SEND) {
      const peer = f.peer[v]!;
      const here = devNum[unitDev[v]!]!;
      cls[v] = linkBetween(cost, here, peer) === cost.intraNode ? C_INTRA : C_INTER;
      peerDev[v] = devIndex.get(peer) ?? -1;
    } else if (k === K_COLLECTIVE) {
      const devices = f.groupDevices[f.collGroup[v]!]!;
      const n0 = nodeOf(devices[0] ?? 0);
      cls[v] = devices.length <= 1 ? C_NONE : devices.every((d) => nodeOf(d) === n0) ? C_INTRA : C_INTER;
    } else if (k === K_MEMORY) cls[v] = C_HOST;
  }

  // --- fluid state ----------------------------------------------------------------------------
  const rem = new Float64Array(N); // work left, in ms at rate 1
  const rate = new Float64Array(N);
  const since = new Float64Array(N);
  const ver = new Int32Array(N);
  // Running jobs per device (unit indices; a collective is represented by its head member).
  const activeComm: number[][] = Array.from({ length: D }, () => []);
  const activeComp: number[][] = Array.from({ length: D }, () => []);
  const devicesOf = (job: number): number[] => {
    const k = kind[job];
    if (k === K_SEND)
      return peerDev[job]! >= 0 && peerDev[job] !== unitDev[job]
        ? [unitDev[job]!, peerDev[job]!]
        : [unitDev[job]!];
    if (k === K_COLLECTIVE) {
      const g = collGroup[job]!;
      if (groupOff[g + 1]! - groupOff[g]! === 1) return ONE[unitDev[job]!]!;
      const out: number[] = [];
      for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
        const d = unitDev[groupUnits[j]!]!;
        if (!out.includes(d)) out.push(d);
      }
      return out;
    }
    return ONE[unitDev[job]!]!;
  };
  const jobDevs: (readonly number[])[] = new Array(N);
  const ONE: number[][] = Array.from({ length: D }, (_, d) => [d]);

  // --- heap of (finish time, job, version) -------------------------------------------------------
  let cap = 1024;
  let heapU = new Int32Array(cap);
  let heapK = new Float64Array(cap);
  let heapV = new Int32Array(cap);
  let hn = 0;
  const less = (ka: number, ua: number, kb: number, ub: number) => ka < kb || (ka === kb && ua < ub);
  const push = (u: number, key: number) => {
    if (hn === cap) {
      cap *= 2;
      const nu = new Int32Array(cap);
      nu.set(heapU);
      heapU = nu;
      const nk = new Float64Array(cap);
      nk.set(heapK);
      heapK = nk;
      const nv = new Int32Array(cap);
      nv.set(heapV);
      heapV = nv;
    }
    let i = hn++;
    const vv = ver[u]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(key, u, heapK[p]!, heapU[p]!)) break;
      heapU[i] = heapU[p]!;
      heapK[i] = heapK[p]!;
      heapV[i] = heapV[p]!;
      i = p;
    }
    heapU[i] = u;
    heapK[i] = key;
    heapV[i] = vv;
  };
  let popV = 0;
  let popK = 0;
  const pop = (): number => {
    const top = heapU[0]!;
    popV = heapV[0]!;
    popK = heapK[0]!;
    hn--;
    const lu = heapU[hn]!;
    const lk = heapK[hn]!;
    const lv = heapV[hn]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= hn) break;
      const r = c + 1;
      if (r < hn && less(heapK[r]!, heapU[r]!, heapK[c]!, heapU[c]!)) c = r;
      if (!less(heapK[c]!, heapU[c]!, lk, lu)) break;
      heapU[i] = heapU[c]!;
      heapK[i] = heapK[c]!;
      heapV[i] = heapV[c]!;
      i = c;
    }
    heapU[i] = lu;
    heapK[i] = lk;
    heapV[i] = lv;
    return top;
  };

  const shareOf = (d: number, c: number): number => {
    let k = 0;
    for (const j of activeComm[d]!) if (cls[j] === c) k++;
    return k > 0 ? 1 / k : 1;
  };
  const commRate = (job: number): number => {
    const c = cls[job]!;
    if (c === C_NONE) return 1;
    let r = 1;
    for (const d of jobDevs[job]!) r = Math.min(r, shareOf(d, c));
    return r;
  };
  const computeRate = (d: number): number => {
    let sm = 0;
    for (const j of activeComm[d]!) if (cls[j] !== C_HOST) sm += smOf(j);
    const n = activeComp[d]!.length || 1;
    return Math.max(MIN_COMPUTE_RATE, 1 - sm) / n;
  };
  /** Brings a job's progress up to t and gives it its current rate and finish event. */
  const reschedule = (job: number, t: number, r: number) => {
    rem[job] = Math.max(0, rem[job]! - (t - since[job]!) * rate[job]!);
    since[job] = t;
    if (r === rate[job]) return;
    rate[job] = r;
    ver[job]!++;
    push(job, t + rem[job]! / r);
  };
  /** Rates of everything running on the given devices changed: recompute them at t. */
  const touch = (devs: readonly number[], t: number) => {
    for (const d of devs) {
      const cr = computeRate(d);
      for (const j of activeComp[d]!) reschedule(j, t, cr);
      for (const j of activeComm[d]!) reschedule(j, t, commRate(j));
    }
  };
  const startJob = (job: number, t: number, work: number, isComm: boolean) => {
    rem[job] = work;
    since[job] = t;
    rate[job] = 0;
    const devs = isComm ? devicesOf(job) : ONE[unitDev[job]!]!;
    jobDevs[job] = devs;
    for (const d of devs) (isComm ? activeComm : activeComp)[d]!.push(job);
    if (work === 0) {
      rate[job] = 1;
      ver[job]!++;
      push(job, t);
      return;
    }
    touch(devs, t);
  };
  const stopJob = (job: number, t: number, isComm: boolean) => {
    const devs = jobDevs[job]!;
    for (const d of devs) {
      const list = (isComm ? activeComm : activeComp)[d]!;
      const i = list.indexOf(job);
      if (i >= 0) list.splice(i, 1);
    }
    touch(devs, t);
  };

  // --- exposed communication and memory, as in engine.ts ---------------------------------------
  const compActive = new Int32Array(D);
  const commActive = new Int32Array(D);
  const lastT = new Float64Array(D);
  const exposed = new Float64Array(D);
  // Exposed time per kind of communication: an interval counts for every kind in flight.
  const inFlight = new Int32Array(D * EXPOSED_KINDS.length);
  const exposedByKind = new Float64Array(D * EXPOSED_KINDS.length);
  const kindOf = (v: number): number => {
    const k = kind[v];
    if (k !== K_COLLECTIVE) return 0;
    return EXPOSED_KINDS.indexOf(f.groupOp[f.collGroup[v]!]!);
  };
  const mark = (d: number, t: number, dComp: number, dComm: number, v = -1) => {
    if (commActive[d]! > 0 && compActive[d] === 0) {
      exposed[d]! += t - lastT[d]!;
      const base = d * EXPOSED_KINDS.length;
      for (let c = 0; c < EXPOSED_KINDS.length; c++)
        if (inFlight[base + c]! > 0) exposedByKind[base + c]! += t - lastT[d]!;
    }
    lastT[d] = t;
    compActive[d]! += dComp;
    commActive[d]! += dComm;
    if (dComm !== 0 && v >= 0) inFlight[d * EXPOSED_KINDS.length + kindOf(v)]! += dComm;
  };
  const clock = new Float64Array(1);
  const memory = new MemoryTrack(f.plan.devices, keep, clock);
  const effect = (d: number, t: number, free: number, alloc: number) => {
    clock[0] = t;
    memory.effect(d, free, alloc);
  };

  const postedQ: number[] = [];
  const begin = (v: number, t: number) => {
    start[v] = t;
    state[v] = S_RUNNING;
    order[started++] = v;
  };

  const ready = (v: number, t: number) => {
    const k = kind[v]!;
    const d = unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) {
      mark(d, t, 1, 0);
      if (allocB[v] !== 0) effect(d, t, 0, allocB[v]!);
      begin(v, t);
      startJob(v, t, dur[v]!, false);
    } else if (k === K_SEND) {
      mark(d, t, 0, 1, v);
      begin(v, t);
      startJob(v, t, dur[v]!, true);
      const r = recvOf[v]!;
      if (r >= 0 && state[r] === S_RECV_WAIT) {
        wire[r] = 1;
        mark(unitDev[r]!, t, 0, 1, r);
      }
    } else if (k === K_RECV) {
      const sd = sendOf[v]!;
      start[v] = t;
      order[started++] = v;
      const nx = v + 1;
      if (nx < N && unitStream[nx] === unitStream[v] && --dep[nx]! === 0) postedQ.push(nx, t);
      if (state[sd] === S_DONE) {
        end[v] = t;
        state[v] = S_RUNNING;
        ver[v]!++;
        push(v, t);
      } else {
        state[v] = S_RECV_WAIT;
        if (state[sd] === S_RUNNING) {
          wire[v] = 1;
          mark(d, t, 0, 1, v);
        }
      }
    } else if (k === K_COLLECTIVE) {
      state[v] = S_ARRIVED;
      const g = collGroup[v]!;
      if (--remaining[g]! === 0) {
        for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
          const m = groupUnits[j]!;
          mark(unitDev[m]!, t, 0, 1, m);
          begin(m, t);
        }
        startJob(groupUnits[groupOff[g]!]!, t, groupDur[g]!, true);
      }
    } else {
      if (allocB[v] !== 0) effect(d, t, 0, allocB[v]!);
      begin(v, t);
      startJob(v, t, dur[v]!, true);
    }
  };

  const complete = (v: number, t: number) => {
    end[v] = t;
    state[v] = S_DONE;
    done++;
    const k = kind[v]!;
    const d = unitDev[v]!;
    if (k === K_COMPUTE || k === K_OVERLAP) mark(d, t, -1, 0);
    else if (k === K_SEND) {
      mark(d, t, 0, -1, v);
      const r = recvOf[v]!;
      if (r >= 0 && state[r] === S_RECV_WAIT) {
        end[r] = t;
        state[r] = S_RUNNING;
        ver[r]!++;
        push(r, t);
      }
    } else if (k === K_RECV) {
      if (wire[v] === 1) mark(d, t, 0, -1, v);
    } else if (k === K_COLLECTIVE) mark(d, t, 0, -1, v);
    if (freeB[v] !== 0) effect(d, t, freeB[v]!, 0);
    const next = v + 1;
    if (k !== K_RECV && next < N && unitStream[next] === unitStream[v] && --dep[next]! === 0) ready(next, t);
    for (let j = succOff[v]!; j < succOff[v + 1]!; j++) {
      const x = succ[j]!;
      if (--dep[x]! === 0) ready(x, t);
    }
  };

  const finishJob = (job: number, t: number) => {
    const k = kind[job]!;
    if (k === K_RECV) {
      complete(job, t);
      return;
    }
    const isComm = k !== K_COMPUTE && k !== K_OVERLAP;
    stopJob(job, t, isComm);
    if (k === K_COLLECTIVE) {
      const g = collGroup[job]!;
      for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) end[groupUnits[j]!] = t;
      for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) complete(groupUnits[j]!, t);
    } else complete(job, t);
  };

  const drainPosted = () => {
    while (postedQ.length > 0) {
      const t = postedQ.pop()!;
      ready(postedQ.pop()!, t);
    }
  };
  const initial: number[] = [];
  for (let v = 0; v < N; v++) if (dep[v] === 0) initial.push(v);
  for (const v of initial) ready(v, 0);
  drainPosted();
  while (hn > 0) {
    const job = pop();
    if (popV !== ver[job] || state[job] === S_DONE) continue;
    finishJob(job, popK);
    drainPosted();
  }
  for (let d = 0; d < D; d++) memory.flush(d);
  return {
    start,
    end,
    state,
    order,
    started,
    done,
    exposed,
    peak: memory.peak,
    points: memory.points,
    exposedByKind,
  };
}
