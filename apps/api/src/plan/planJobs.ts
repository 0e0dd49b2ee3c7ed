/**
 * Layout searches as jobs: each runs on a thread of its own, apart from the compile pool, at the
 * lowest CPU priority, so a search of a minute never holds a worker a compile is waiting for. A
 * bounded number search at once (503 with Retry-After beyond), and finished jobs are kept for a
 * while for their result, a bounded number of them, the oldest forgotten first.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Issue } from '@stagecraft/ir';
import type { Limits } from '../limits.ts';
import type { FromPlanWorker, PlanProgress, PlanRequest, PlanResult, ToPlanWorker } from './planProtocol.ts';

export type PlanJobStatus = 'running' | 'cancelling' | 'done' | 'cancelled' | 'failed';

/** A job as `GET /api/plan-jobs/:id` answers it. */
export interface PlanJobView {
  id: string;
  status: PlanJobStatus;
  createdAt: string;
  budgetS: number;
  progress: PlanProgress;
  /** Once the search stopped: the front (the best so far, for a cancelled one). */
  result?: PlanResult;
  /** Why a failed job failed, at a path into the request when the request was the cause. */
  error?: Issue;
}

export interface PlanJobsOptions {
  /** Searches running at once. */
  running: number;
  /** Finished jobs kept for their result. */
  kept: number;
  /** How long a finished job is kept, in ms. */
  keepMs: number;
  /** Old-generation heap of a search's thread, in MiB. */
  memoryMb: number;
  /** How long past its budget (or a cancel) a search may take to hand its front over before its thread is stopped. */
  graceMs: number;
}

export type StartAnswer =
  | { ok: true; job: PlanJobView }
  | { ok: false; status: 503; issue: Issue; retryAfterS: number };

interface Job {
  view: PlanJobView;
  worker?: Worker;
  /** The thread has loaded the planner and is searching. */
  searching?: boolean;
  watchdog?: NodeJS.Timeout;
  /** When the search started (its thread loaded), else when the job was made. */
  startedAt: number;
  finishedAt?: number;
}

/**
 * A search hands its front over within this of its budget or a cancel: the planner checks its
 * signal between layouts, each a compile and simulate of well under a second on the recipes.
 */
const GRACE_MS = 5_000;

/** Longest a search's thread may take to load the planner before the job fails. */
const LOAD_MS = 60_000;

const ENTRY = new URL('./planWorkerEntry.mjs', import.meta.url);

const NO_PROGRESS: PlanProgress = { tried: 0, pruned: 0, frontSize: 0, elapsedMs: 0, timeLeftMs: 0 };

export class PlanJobs {
  private readonly jobs = new Map<string, Job>();
  private closed = false;

  constructor(readonly options: PlanJobsOptions) {}

  /** The jobs the server's limits describe; a search's thread gets a compile worker's heap. */
  static forLimits(limits: Limits): PlanJobs {
    return new PlanJobs({
      running: limits.planJobs,
      kept: limits.planJobsKept,
      keepMs: limits.planKeepMs,
      memoryMb: limits.workerMemoryMb,
      graceMs: GRACE_MS,
    });
  }

  get runningCount(): number {
    let n = 0;
    for (const j of this.jobs.values()) if (isRunning(j.view.status)) n++;
    return n;
  }

  start(request: PlanRequest): StartAnswer {
    this.expire();
    const running = [...this.jobs.values()].filter((j) => isRunning(j.view.status));
    if (this.closed || running.length >= this.options.running) {
      // The soonest a running search ends: its budget left, or its grace once cancelled.
      const soonest = Math.min(...running.map((j) => timeLeftMs(j, this.options.graceMs)), 60_000);
      return {
        ok: false,
        status: 503,
        issue: {
          path: '',
          message: this.closed
            ? 'the server is shutting down'
            : `${running.length} search${running.length === 1 ? ' is' : 'es are'} running, the most this server runs at once; retry when one ends, or cancel one (DELETE /api/plan-jobs/:id)`,
        },
        retryAfterS: Math.max(1, Math.ceil(soonest / 1000)),
      };
    }
    const id = randomUUID();
    const job: Job = {
      view: {
        id,
        status: 'running',
        createdAt: new Date().toISOString(),
        budgetS: request.budgetS,
        progress: { ...NO_PROGRESS, timeLeftMs: request.budgetS * 1000 },
      },
      startedAt: Date.now(),
    };
    this.jobs.set(id, job);
    this.run(job, request);
    return { ok: true, job: job.view };
  }

  get(id: string): PlanJobView | undefined {
    this.expire();
    return this.jobs.get(id)?.view;
  }

  /**
   * A running search is asked to stop: it keeps its front so far, then `cancelled`. A finished
   * one is forgotten. Undefined for an unknown id.
   */
  cancel(id: string): PlanJobView | 'forgotten' | undefined {
    this.expire();
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (!isRunning(job.view.status)) {
      this.jobs.delete(id);
      return 'forgotten';
    }
    if (job.view.status === 'running') {
      job.view = { ...job.view, status: 'cancelling' };
      job.worker?.postMessage({ type: 'cancel' } satisfies ToPlanWorker);
      this.watch(job, this.options.graceMs);
    }
    return job.view;
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopping: Promise<number>[] = [];
    for (const job of this.jobs.values()) {
      if (job.watchdog) clearTimeout(job.watchdog);
      if (job.worker) stopping.push(job.worker.terminate());
    }
    this.jobs.clear();
    await Promise.all(stopping);
  }

  private run(job: Job, request: PlanRequest): void {
    const worker = new Worker(ENTRY, { resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb } });
    job.worker = worker;
    worker.on('message', (m: FromPlanWorker) => {
      if (m.type === 'started') {
        job.searching = true;
        job.startedAt = Date.now();
        if (job.view.status === 'running') this.watch(job, request.budgetS * 1000 + this.options.graceMs);
      } else if (m.type === 'progress') {
        if (isRunning(job.view.status)) job.view = { ...job.view, progress: m.progress };
      } else if (m.type === 'done') {
        const cancelled = job.view.status === 'cancelling';
        this.finish(job, cancelled ? 'cancelled' : 'done', {
          result: m.result,
          progress: {
            ...job.view.progress,
            tried: m.result.tried,
            pruned: m.result.pruned,
            frontSize: m.result.front.length,
            elapsedMs: Date.now() - job.startedAt,
            timeLeftMs: 0,
          },
        });
      } else if (m.type === 'refused')
        this.finish(job, 'failed', { error: { path: m.path, message: m.message } });
      else this.finish(job, 'failed', { error: { path: '', message: `internal error: ${m.message}` } });
    });
    worker.on('error', (e) => {
      const message =
        (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the search ran out of its ${this.options.memoryMb} MiB of memory; search a smaller design or space`
          : `internal error: ${e.message}`;
      this.finish(job, 'failed', { error: { path: '', message } });
    });
    worker.on('exit', () => {
      if (isRunning(job.view.status))
        this.finish(job, 'failed', { error: { path: '', message: 'the search stopped without a result' } });
    });
    worker.postMessage({ type: 'start', request } satisfies ToPlanWorker);
    // The budget counts once the search starts: loading the compiler at the lowest priority on a
    // busy machine takes seconds of its own.
    this.watch(job, LOAD_MS);
  }

  /** A search still running `ms` from now is stopped: its thread no longer answers. */
  private watch(job: Job, ms: number): void {
    if (job.watchdog) clearTimeout(job.watchdog);
    job.watchdog = setTimeout(() => {
      if (!isRunning(job.view.status)) return;
      const cancelled = job.view.status === 'cancelling';
      const message = job.searching
        ? `the search did not stop within ${Math.round(this.options.graceMs / 1000)} s of its budget of ${job.view.budgetS} s`
        : `the search did not start within ${LOAD_MS / 1000} s (the server is too busy)`;
      this.finish(
        job,
        cancelled ? 'cancelled' : 'failed',
        cancelled ? {} : { error: { path: job.searching ? 'budgetS' : '', message } },
      );
    }, ms);
    job.watchdog.unref();
  }

  private finish(job: Job, status: PlanJobStatus, extra: Partial<PlanJobView>): void {
    if (!isRunning(job.view.status)) return;
    if (job.watchdog) clearTimeout(job.watchdog);
    job.view = {
      ...job.view,
      status,
      ...extra,
      progress: { ...(extra.progress ?? job.view.progress), timeLeftMs: 0 },
    };
    job.finishedAt = Date.now();
    const worker = job.worker;
    job.worker = undefined;
    void worker?.terminate();
    this.expire();
  }

  /** Finished jobs past their time, then the oldest finished beyond the number kept. */
  private expire(): void {
    const now = Date.now();
    const finished: [string, Job][] = [];
    for (const [id, j] of this.jobs) {
      if (j.finishedAt === undefined) continue;
      if (now - j.finishedAt > this.options.keepMs) this.jobs.delete(id);
      else finished.push([id, j]);
    }
    finished.sort((a, b) => (a[1].finishedAt ?? 0) - (b[1].finishedAt ?? 0));
    for (const [id] of finished.slice(0, Math.max(0, finished.length - this.options.kept)))
      this.jobs.delete(id);
  }
}

function isRunning(status: PlanJobStatus): boolean {
  return status === 'running' || status === 'cancelling';
}

function timeLeftMs(job: Job, graceMs: number): number {
  if (job.view.status === 'cancelling') return graceMs;
  return Math.max(0, job.startedAt + job.view.budgetS * 1000 - Date.now());
}
