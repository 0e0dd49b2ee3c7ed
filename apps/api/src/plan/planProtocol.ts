/** Messages between the plan jobs (planJobs.ts) and the thread each search runs on (planWorker.ts). */
import type { Design } from '@stagecraft/ir';
import type { LayoutPoint, SearchProgress } from '@stagecraft/planner';

/** A search as the API accepted it (schemas.ts, planJobBodySchema), the design already parsed. */
export interface PlanRequest {
  design: Design;
  /** Peak memory a device may hold, in GiB (the cluster's own memory when absent). */
  maxMemoryGiB?: number;
  /** Sequences per step; the design's own when absent. */
  globalBatch?: number;
  /** Seconds the search may run before it stops with the best so far. */
  budgetS: number;
  seed?: number;
}

export type PlanProgress = SearchProgress;

/**
 * The front as the API sends it: the planner's answer (`@stagecraft/planner`'s LayoutSearchResult),
 * its best point named by its index in the front rather than repeated.
 */
export interface PlanResult {
  front: LayoutPoint[];
  /** Index in `front` of the fastest point that fits; null when none fits. */
  best: number | null;
  spaceSize: number;
  tried: number;
  pruned: number;
  stoppedEarly: boolean;
}

export type ToPlanWorker = { type: 'start'; request: PlanRequest } | { type: 'cancel' };

export type FromPlanWorker =
  /** The thread has loaded the planner and starts searching: the budget counts from here. */
  | { type: 'started' }
  | { type: 'progress'; progress: PlanProgress }
  | { type: 'done'; result: PlanResult }
  /** The request was read but cannot be searched (no valid layout, a field the planner refuses). */
  | { type: 'refused'; path: string; message: string }
  | { type: 'failed'; message: string };
