/**
 * Compiles run on a pool of worker threads, so one large design never blocks the event loop or
 * other users. Each job has a time limit counted from the moment it is queued (a caller waits the
 * same however the time splits between queue and worker): a job still queued at its deadline
 * answers 503 with Retry-After, and a worker that overruns it is terminated and replaced. Large
 * jobs (by the size estimated before they run) share a lane of all workers but one, so a small
 * design always finds a worker however many large ones are waiting. A newer revision of a design supersedes the older ones, queued or
 * running: they answer 409 at once and a running one's worker is replaced, so its CPU goes to the
 * revision the user is looking at.
 */
import { Worker } from 'node:worker_threads';
import type { Issue } from '@stagecraft/ir';
import type { Limits } from '../limits.ts';
import type { JobMessage, Task, TaskOutcome, WorkerMessage } from './protocol.ts';

export interface Job<T extends Task = Task> {
  task: T;
  /** With `revision`: a newer revision of the same design supersedes this job. */
  designId?: string;
  revision?: number;
  /** Ops the design is estimated to compile to; at `largeOps` or more the job runs in the large lane. */
  size?: number;
}

export type Refusal = {
  ok: false;
  status: 409 | 413 | 500 | 503;
  errors: Issue[];
  /** With a 503 for a busy server: seconds after which a retry is likely to find room. */
  retryAfterS?: number;
};
export type PoolAnswer<T extends Task = Task> = TaskOutcome<T> | Refusal;

export interface PoolOptions {
  workers: number;
  /** Per job, from the moment it is queued. */
  timeLimitMs: number;
  maxOps: number;
  /** Jobs waiting for a worker beyond which new jobs are refused. */
  queueLength: number;
  /** Old-generation heap of each worker, in MiB. */
  memoryMb?: number;
  /** Estimated ops from which a job is large (default: every job is small). */
  largeOps?: number;
}

interface Pending {
  id: number;
  job: Job;
  resolve: (a: PoolAnswer) => void;
  large: boolean;
  queuedAt: number;
  timer?: NodeJS.Timeout;
  startedAt?: number;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Pending;
  loadError?: string;
  /** Has run a large job, so runs at a lower CPU priority: small jobs go elsewhere when they can. */
  lowered?: boolean;
}

/**
 * A superseded compile still running after this long gets its worker replaced. Starting a worker
 * (loading the compiler) costs about this much CPU, so shorter compiles are cheaper to let finish.
 */
const REPLACE_AFTER_MS = 1_000;

/** Designs whose latest revision is remembered, beyond which the oldest are forgotten. */
const REVISIONS_KEPT = 10_000;

const ENTRY = new URL('./workerEntry.mjs', import.meta.url);

/** Weight of the newest job in the running mean of job times that Retry-After is estimated from. */
const MEAN_WEIGHT = 0.2;

export class CompilePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  /** Per design, the latest revision and when it was claimed (performance.now()). */
  private readonly latest = new Map<string, { revision: number; at: number }>();
  private nextId = 1;
  private closed = false;
  /** Workers that died before loading the compiler, in a row; past a few, the pool stops respawning. */
  private startFailures = 0;
  private broken: string | undefined;
  /** Workers replaced after a time limit, a supersede or a crash. */
  replaced = 0;
  /** Running mean of how long a worker holds a job, in ms. */
  private meanJobMs = 100;

  /**
   * The pool the server's limits describe: workers, per-compile time and size, queue, worker heap.
   * With `deferStart`, no worker starts until `startWorkers()` (the server calls it once it
   * listens, so on a machine of few cores the workers loading the compiler do not slow its start).
   */
  static forLimits(limits: Limits, deferStart = false): CompilePool {
    const pool = new CompilePool({
      workers: limits.workers,
      timeLimitMs: limits.compileMs,
      maxOps: limits.maxOps,
      queueLength: limits.queueLength,
      memoryMb: limits.workerMemoryMb,
      largeOps: limits.largeOps,
    });
    if (!deferStart) pool.startWorkers();
    return pool;
  }

  constructor(readonly options: PoolOptions) {}

  /** Starts the workers, once: jobs queued before wait for the first to load the compiler. */
  startWorkers(): void {
    if (this.slots.length > 0 || this.closed) return;
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
  }

  /** Workers of the pool, started or not. */
  get size(): number {
    return Math.max(1, this.options.workers);
  }

  /** Workers large jobs may hold at once: all but one, so small jobs always have a worker. */
  get largeLane(): number {
    return Math.max(1, this.size - 1);
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves once every worker has loaded the compiler. */
  async ready(): Promise<void> {
    this.startWorkers();
    while (!this.closed && !this.broken && this.slots.some((s) => !s.ready))
      await new Promise((r) => setTimeout(r, 20));
  }

  run<T extends Task>(job: Job<T>): Promise<PoolAnswer<T>> {
    return this.enqueue(job) as Promise<PoolAnswer<T>>;
  }

  /**
   * Records that `revision` of `designId` is the latest one (a cached answer still supersedes
   * older compiles); a refusal when a newer revision was seen already.
   */
  claim(designId: string, revision: number): Refusal | undefined {
    const latest = this.latest.get(designId);
    // A claim holds for one time limit: no compile it could supersede is still running after
    // that, so a revision from far in the future cannot lock a designId for everyone else.
    const live = latest !== undefined && performance.now() - latest.at < this.options.timeLimitMs;
    if (live && revision < latest.revision)
      return refusal(409, 'revision', `superseded by revision ${latest.revision}`);
    this.supersede(designId, revision);
    return undefined;
  }

  private enqueue(job: Job): Promise<PoolAnswer> {
    if (this.closed) return Promise.resolve(refusal(503, '', 'the server is shutting down'));
    if (this.broken) return Promise.resolve(refusal(500, '', `internal error: ${this.broken}`));
    if (job.designId !== undefined && job.revision !== undefined) {
      const stale = this.claim(job.designId, job.revision);
      if (stale) return Promise.resolve(stale);
    }
    if (this.queue.length >= this.options.queueLength) {
      return Promise.resolve(
        this.busy(`the server is busy (${this.queue.length} compiles waiting); try again shortly`),
      );
    }
    return new Promise((resolve) => {
      const large = this.options.largeOps !== undefined && (job.size ?? 0) >= this.options.largeOps;
      const p: Pending = { id: this.nextId++, job, resolve, large, queuedAt: performance.now() };
      p.timer = setTimeout(() => this.expire(p), this.options.timeLimitMs);
      this.queue.push(p);
      this.dispatch();
    });
  }

  /** A job whose deadline passed while it waited: it never gets a worker. */
  private expire(p: Pending): void {
    const i = this.queue.indexOf(p);
    if (i < 0) return;
    this.queue.splice(i, 1);
    const limit = this.options.timeLimitMs.toLocaleString('en-US');
    p.resolve(
      this.busy(
        `the server is busy: the compile waited for a worker for the whole time limit of ${limit} ms; try again shortly`,
      ),
    );
  }

  /** A 503 for lack of room, with the time the jobs ahead are likely to take. */
  private busy(message: string): Refusal {
    const ahead = this.queue.length + this.size;
    const ms = Math.min(this.options.timeLimitMs, (ahead * this.meanJobMs) / this.size);
    return { ...refusal(503, '', message), retryAfterS: Math.max(1, Math.ceil(ms / 1000)) };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) {
      clearTimeout(p.timer);
      p.resolve(refusal(503, '', 'the server is shutting down'));
    }
    await Promise.all(
      this.slots.map(async (s) => {
        if (s.job) this.finish(s, refusal(503, '', 'the server is shutting down'));
        await s.worker.terminate();
      }),
    );
  }

  private supersede(designId: string, revision: number): void {
    this.latest.delete(designId);
    this.latest.set(designId, { revision, at: performance.now() });
    if (this.latest.size > REVISIONS_KEPT) this.latest.delete(this.latest.keys().next().value!);
    const answer = refusal(409, 'revision', `superseded by revision ${revision}`);
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const p = this.queue[i]!;
      if (p.job.designId === designId && p.job.revision !== undefined && p.job.revision < revision) {
        this.queue.splice(i, 1);
        clearTimeout(p.timer);
        p.resolve(answer);
      }
    }
    for (const s of this.slots) {
      const p = s.job;
      if (p && p.job.designId === designId && p.job.revision !== undefined && p.job.revision < revision) {
        // Answered now; the worker finishes (its result is dropped) or is replaced if it runs on.
        p.resolve(answer);
        if (p.timer) clearTimeout(p.timer);
        const left = REPLACE_AFTER_MS - (performance.now() - (p.startedAt ?? 0));
        p.timer = setTimeout(
          () => {
            if (s.job !== p) return;
            this.finish(s, answer);
            this.replace(s);
            this.dispatch();
          },
          Math.max(0, left),
        );
      }
    }
  }

  private spawn(): Slot {
    const memoryMb = this.options.memoryMb;
    const worker = new Worker(
      ENTRY,
      memoryMb ? { resourceLimits: { maxOldGenerationSizeMb: memoryMb } } : {},
    );
    const slot: Slot = { worker, ready: false };
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'ready') {
        slot.ready = true;
        this.startFailures = 0;
        this.dispatch();
        return;
      }
      const p = slot.job;
      if (!p || p.id !== m.id) return;
      if (m.type === 'done') this.finish(slot, m.outcome);
      else this.finish(slot, refusal(500, '', `internal error while compiling: ${m.message}`));
      this.dispatch();
    });
    worker.on('error', (e) => {
      if (!slot.ready) slot.loadError = e.message;
      if (slot.job && (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const message = `compiling the design needs more than the memory limit of ${memoryMb ?? '?'} MiB`;
        this.finish(slot, { ok: false, status: 413, errors: [{ path: 'design', message }] });
      }
      if (slot.job) this.finish(slot, refusal(500, '', `internal error while compiling: ${e.message}`));
    });
    worker.on('exit', () => {
      if (this.closed || !this.slots.includes(slot)) return;
      if (!slot.ready && ++this.startFailures >= 3) {
        this.broken = `the compile workers fail to start (${slot.loadError ?? 'no reason given'})`;
        for (const p of this.queue.splice(0)) {
          clearTimeout(p.timer);
          p.resolve(refusal(500, '', `internal error: ${this.broken}`));
        }
        return;
      }
      // A worker that dies on its own (not terminated by us) is replaced like an overrunning one.
      this.replace(slot);
    });
    return slot;
  }

  private replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    if (slot.job) this.finish(slot, refusal(500, '', 'internal error: the compile worker stopped'));
    this.slots[i] = this.spawn();
    this.replaced++;
    void slot.worker.terminate();
  }

  private finish(slot: Slot, answer: PoolAnswer): void {
    const p = slot.job;
    if (!p) return;
    if (p.timer) clearTimeout(p.timer);
    slot.job = undefined;
    if (p.startedAt !== undefined) {
      this.meanJobMs += MEAN_WEIGHT * (performance.now() - p.startedAt - this.meanJobMs);
    }
    p.resolve(answer);
  }

  private dispatch(): void {
    if (this.closed) return;
    let largeRunning = this.slots.filter((s) => s.job?.large).length;
    // First come, first served, except that a large job past the lane's bound waits without
    // holding up the small jobs queued behind it.
    for (let i = 0; i < this.queue.length; ) {
      const idle = this.slots.filter((s) => s.ready && !s.job);
      if (idle.length === 0) return;
      const p = this.queue[i]!;
      if (p.large && largeRunning >= this.largeLane) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      if (p.large) largeRunning++;
      // The same design goes to the same worker when it can: that worker holds its last compile.
      const home =
        p.job.designId !== undefined ? this.slots[affinity(p.job.designId, this.slots.length)]! : undefined;
      const fit = p.large ? idle : idle.filter((s) => !s.lowered);
      const choice = fit.length > 0 ? fit : idle;
      const slot = home && choice.includes(home) ? home : choice[0]!;
      this.start(slot, p);
    }
  }

  private start(slot: Slot, p: Pending): void {
    slot.job = p;
    p.startedAt = performance.now();
    const { timeLimitMs, maxOps } = this.options;
    clearTimeout(p.timer);
    const left = timeLimitMs - (p.startedAt - p.queuedAt);
    p.timer = setTimeout(
      () => {
        if (slot.job !== p) return;
        const waited = (p.startedAt ?? p.queuedAt) - p.queuedAt;
        // Worth saying when the wait, not the design, used a good part of the time.
        const of =
          waited >= 100
            ? ` (${Math.round(waited).toLocaleString('en-US')} ms of it waiting for a worker)`
            : '';
        this.finish(
          slot,
          refusal(
            503,
            '',
            `the compile took longer than the time limit of ${timeLimitMs.toLocaleString('en-US')} ms${of}`,
          ),
        );
        this.replace(slot);
        this.dispatch();
      },
      Math.max(0, left),
    );
    const m: JobMessage = { type: 'job', id: p.id, task: p.job.task, maxOps };
    if (p.job.designId !== undefined) m.designId = p.job.designId;
    if (p.large) {
      m.large = true;
      slot.lowered = true;
    }
    slot.worker.postMessage(m);
  }
}

/** The Retry-After of an answer, when it is a refusal for lack of room. */
export function retryAfterOf(answer: PoolAnswer): number | undefined {
  return 'retryAfterS' in answer ? answer.retryAfterS : undefined;
}

function refusal(status: 409 | 500 | 503, path: string, message: string): Refusal {
  return { ok: false, status, errors: [{ path, message }] };
}

function affinity(id: string, n: number): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  return Math.abs(h) % n;
}
