/** What the service accepts: every request is bounded in size, depth, ops and time. */
import { availableParallelism } from 'node:os';
import { DEFAULT_QUOTA_BYTES } from './designStore.ts';

export interface Limits {
  /** Largest request body, in bytes (413 above it). */
  bodyBytes: number;
  /** Longest a request may take to arrive in full, headers and body, in milliseconds (408 after it). */
  requestMs: number;
  /** Deepest nesting of a JSON body (400 above it). */
  jsonDepth: number;
  /** Largest DAG a design may compile to, in ops (413 above it). */
  maxOps: number;
  /** Longest a compile may take, waiting for a worker included, in milliseconds (503 after it). */
  compileMs: number;
  /**
   * Estimated ops from which a design is large: large designs share all workers but one, so a
   * small design never waits behind them.
   */
  largeOps: number;
  /**
   * Estimated ops from which `/api/compile` leaves the bulky parts of its answer (DAG, plan,
   * timeline, pass snapshots) out unless `include` asks for them: about 500 bytes an op.
   */
  detailOps: number;
  /**
   * Largest `/api/export` answer, in bytes (413 above it): a 31 KB DeepSeek design exports a
   * 59 MiB plan, and eight such answers at once held 600 MB of the server's memory.
   */
  exportBytes: number;
  /** Bytes of saved design versions the database holds before a save is refused (507). */
  designQuotaBytes: number;
  /** Compiles waiting for a worker beyond which new ones are refused (503). */
  queueLength: number;
  /** Worker threads compiling designs. */
  workers: number;
  /** Compile answers kept by content hash, in bytes (an answer of a p=8, m=32 design is about 0.8 MB). */
  cacheBytes: number;
  /** Heap of one worker, in MiB: a compile that needs more is stopped (413), not the server. */
  workerMemoryMb: number;
  /**
   * Layout searches running at once (`/api/plan-jobs`, 503 beyond): each holds a thread of its
   * own besides the compile workers, at the lowest CPU priority.
   */
  planJobs: number;
  /** Longest budget a search may ask for, in seconds (400 above it). */
  planBudgetS: number;
  /** Finished searches kept for their result, and for how long, in ms. */
  planJobsKept: number;
  planKeepMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  bodyBytes: 4 * 1024 * 1024,
  requestMs: 30_000,
  jsonDepth: 64,
  maxOps: 1_000_000,
  compileMs: 20_000,
  // About half a second of compiling; a typical design (p=8, m=32) is under 2,000.
  largeOps: 50_000,
  // About 50 MB of answer with every part included.
  detailOps: 100_000,
  // The largest example designs' plans (llama3.1-405b, 2 to 9 MiB) fit several times over.
  exportBytes: 32 * 1024 * 1024,
  designQuotaBytes: DEFAULT_QUOTA_BYTES,
  queueLength: 256,
  workers: Math.max(1, availableParallelism()),
  workerMemoryMb: 2048,
  cacheBytes: 64 * 1024 * 1024,
  // One search at a time: on a machine of two cores a second would take the compile workers' CPU.
  planJobs: 1,
  // Issue 31's target for the largest recipe's front is under 60 s on this 2-core machine; twice that leaves room.
  planBudgetS: 120,
  planJobsKept: 16,
  // Ten minutes for the page that started a search to collect its front.
  planKeepMs: 10 * 60_000,
};

export function withLimits(partial: Partial<Limits> = {}): Limits {
  return { ...DEFAULT_LIMITS, ...partial };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n.toLocaleString('en-US')} bytes`;
}
