/**
 * A real cluster's pace, where concurrent work shares resources: every running job progresses at
 * a rate that changes whenever what runs beside it changes.
 * - A communication job (a SEND, a collective, an OFFLOAD/RELOAD) uses one link class on each
 *   device it touches (jobResources.ts). Jobs on the same device and class share it equally; a
 *   job spanning devices goes at its slowest share.
 * - A compute job runs at 1 − (Σ SM share of the communication kernels running on its device),
 *   never below MIN_COMPUTE_RATE, split equally among the compute jobs running there.
 * A job's time at rate 1 is its cost-model time (latency included: the whole transfer stretches).
 * The loop queues a started job at its end at full rate; whenever its rate changes (starting
 * included) its end moves and it is queued again, and the old entry goes stale.
 * A collective is one job, under its first member, spanning every member's device.
 */
import { UNIT_COMPUTE, UNIT_OVERLAP } from '@stagecraft/ir';
import type { CostCluster } from './costModel.ts';
import type { FinishQueue } from './finishQueue.ts';
import type { Flat } from './flat.ts';
import { C_HOST, C_NONE, JobResources } from './jobResources.ts';
import type { Pace } from './pace.ts';

export const MIN_COMPUTE_RATE = 0.05;

export class SharedPace implements Pace {
  readonly collectiveIsOneJob = true;
  private readonly resources: JobResources;
  /** Per job: work left (ms at rate 1) as of `since`, and the rate it goes at since then. */
  private readonly rem: Float64Array;
  private readonly since: Float64Array;
  private readonly rate: Float64Array;
  /** Per job, the devices it occupies (set when it starts). */
  private readonly jobDevs: (readonly number[])[];
  /** Per device index, the running jobs in the order they started (the order rates are summed in). */
  private readonly activeComm: number[][];
  private readonly activeComp: number[][];

  constructor(
    private readonly f: Flat,
    cost: CostCluster & { kind: 'custom' },
    private readonly queue: FinishQueue,
  ) {
    this.resources = new JobResources(f, cost);
    this.rem = new Float64Array(f.N);
    this.since = new Float64Array(f.N);
    this.rate = new Float64Array(f.N);
    this.jobDevs = new Array(f.N);
    this.activeComm = Array.from({ length: f.D }, () => []);
    this.activeComp = Array.from({ length: f.D }, () => []);
  }

  start(v: number): void {
    const k = this.f.kind[v];
    this.startJob(v, this.f.dur[v]!, k !== UNIT_COMPUTE && k !== UNIT_OVERLAP);
  }

  startCollective(g: number): void {
    const f = this.f;
    this.startJob(f.groupUnits[f.groupOff[g]!]!, f.groupDur[g]!, true);
  }

  stop(v: number): void {
    const k = this.f.kind[v];
    const isComm = k !== UNIT_COMPUTE && k !== UNIT_OVERLAP;
    const devs = this.jobDevs[v]!;
    for (const d of devs) {
      const list = (isComm ? this.activeComm : this.activeComp)[d]!;
      const i = list.indexOf(v);
      if (i >= 0) list.splice(i, 1);
    }
    this.touch(devs);
  }

  private startJob(job: number, work: number, isComm: boolean): void {
    const t = this.queue.now[0]!;
    this.rem[job] = work;
    this.since[job] = t;
    this.rate[job] = 0;
    const devs = this.resources.devicesOf(job, isComm);
    this.jobDevs[job] = devs;
    for (const d of devs) (isComm ? this.activeComm : this.activeComp)[d]!.push(job);
    if (work === 0) {
      this.rate[job] = 1;
      this.queue.end[job] = t;
      this.queue.push(job);
      return;
    }
    this.touch(devs);
  }

  /** Rates of everything running on the given devices changed: recompute them now. */
  private touch(devs: readonly number[]): void {
    for (const d of devs) {
      const cr = this.computeRate(d);
      for (const j of this.activeComp[d]!) this.reschedule(j, cr);
      for (const j of this.activeComm[d]!) this.reschedule(j, this.commRate(j));
    }
  }

  /** Brings a job's progress up to now and, if its rate changed, queues it at its new end. */
  private reschedule(job: number, r: number): void {
    const t = this.queue.now[0]!;
    this.rem[job] = Math.max(0, this.rem[job]! - (t - this.since[job]!) * this.rate[job]!);
    this.since[job] = t;
    if (r === this.rate[job]) return;
    this.rate[job] = r;
    this.queue.end[job] = t + this.rem[job]! / r;
    this.queue.push(job);
  }

  private shareOf(d: number, c: number): number {
    let k = 0;
    for (const j of this.activeComm[d]!) if (this.resources.cls[j] === c) k++;
    return k > 0 ? 1 / k : 1;
  }

  private commRate(job: number): number {
    const c = this.resources.cls[job]!;
    if (c === C_NONE) return 1;
    let r = 1;
    for (const d of this.jobDevs[job]!) r = Math.min(r, this.shareOf(d, c));
    return r;
  }

  private computeRate(d: number): number {
    let sm = 0;
    for (const j of this.activeComm[d]!) if (this.resources.cls[j] !== C_HOST) sm += this.resources.smOf(j);
    const n = this.activeComp[d]!.length || 1;
    return Math.max(MIN_COMPUTE_RATE, 1 - sm) / n;
  }
}
