/**
 * What the planner is asked and what it answers: the types of its public API, and the zod schemas
 * that parse a request at the boundary (CLI flags, an API body) into them, every failure a
 * `{ path, message }`.
 */
import type { Design, Issue } from '@stagecraft/ir';
import * as z from 'zod';

/** What the search polls to stop early: an `AbortSignal` is one (the packages see no DOM or Node types). */
export interface StopSignal {
  readonly aborted: boolean;
}

/** A memory limit per device: absolute, or a multiple of what 1F1B stashes on that device. */
export type MemoryLimit = { bytes: number } | { times1F1B: number };

export const memoryLimitSchema = z.union([
  z.strictObject({ bytes: z.number().positive() }),
  z.strictObject({ times1F1B: z.number().positive().max(1_000) }),
]);

export interface OrderSearchOptions {
  memoryLimit: MemoryLimit;
  /** Wall time the local search may take (default 2,000 ms); the builders and the greedy always run. */
  budgetMs?: number;
  /** Seed of the local search's random moves (default 1): the same seed gives the same answer. */
  seed?: number;
  signal?: StopSignal;
}

export const orderSearchOptionsSchema = z.object({
  memoryLimit: memoryLimitSchema,
  budgetMs: z.number().min(0).max(3_600_000).optional(),
  seed: z.number().int().optional(),
});

/** One per-device order the search simulated, and where it came from. */
export interface OrderCandidate {
  /** `1f1b`, `zb-h1`, … for a builder; `zb-auto` for the Zero Bubble heuristic; `local-search`. */
  source: string;
  stepMs: number;
  /** Peak memory of each device the pipeline uses, in the simulator's accounting. */
  peakMemoryBytes: number[];
  fits: boolean;
}

export type OrderSearchResult =
  | {
      ok: true;
      /** The input design with its schedule replaced by an explicit split + place + order program. */
      design: Design;
      stepMs: number;
      peakMemoryBytes: number[];
      /** Limit per pipeline device, bytes. */
      limitBytes: number[];
      /** The builders that apply to the design's placement, each simulated as it is. */
      baselines: OrderCandidate[];
      /** The Zero Bubble heuristic's fastest order that fits, simulated (absent when none fits). */
      heuristic?: OrderCandidate;
      /** The best candidate, its source saying which step of the search found it. */
      best: OrderCandidate;
      /** What the search did, one line per step, for the user to read. */
      log: string[];
    }
  | { ok: false; errors: Issue[] };

export interface LayoutSearchRequest {
  /** Its model and cluster are what the search lays out; its directives are ignored. */
  design: Design;
  /** Sequences per step (default: the design's microbatches × microbatch size × data replicas). */
  globalBatch?: number;
  /** Points above this peak memory per device are not kept (default: the GPU's memory). */
  maxMemoryBytes?: number;
  /** Wall time the search may take (default 60,000 ms); past it, the front found so far. */
  budgetMs?: number;
  /** Order in which equally promising points are tried (default 1). */
  seed?: number;
}

export const layoutSearchRequestSchema = z.object({
  design: z.unknown(),
  globalBatch: z.number().int().positive().max(1e9).optional(),
  maxMemoryBytes: z.number().positive().optional(),
  budgetMs: z.number().min(0).max(3_600_000).optional(),
  seed: z.number().int().optional(),
});

export interface SearchProgress {
  tried: number;
  pruned: number;
  frontSize: number;
  elapsedMs: number;
  timeLeftMs: number;
}

export interface LayoutSearchOptions {
  signal?: StopSignal;
  onProgress?(p: SearchProgress): void;
  /** Worker threads that simulate (default: one per core but one; 0 simulates on the caller's thread). */
  workers?: number;
}

export type ZeroLevel = 0 | 1 | 2 | 3;

export interface Layout {
  pp: number;
  /** Virtual pipeline chunks per rank (1 without interleaving). */
  vp: number;
  dp: number;
  tp: number;
  ep: number;
  cp?: number;
  zero: ZeroLevel;
  builder: string;
  microbatches: number;
  microbatchSize: number;
  recompute: boolean;
  offload: boolean;
}

export interface LayoutPoint {
  layout: Layout;
  /** The layout as a design the designer opens. */
  design: Design;
  stepMs: number;
  tokensPerSecPerGpu?: number;
  peakMemoryBytes: number;
  fits: boolean;
}

export interface LayoutSearchResult {
  /** Pareto front of step time against peak memory, by step time. */
  front: LayoutPoint[];
  /** The fastest point of the front that fits. */
  best: LayoutPoint;
  /** Layouts the enumeration counts before pruning. */
  spaceSize: number;
  tried: number;
  pruned: number;
  /** The budget ran out or the signal aborted before every layout was tried. */
  stoppedEarly: boolean;
}

export type SweepAxis = 'microbatches' | 'stages';

export interface SweepPoint {
  value: number;
  /** Absent when the design did not compile at this value (`error` says why). */
  stepMs?: number;
  bubbleRatio?: number;
  /** Highest peak over devices. */
  peakMemoryBytes?: number;
  error?: string;
}
