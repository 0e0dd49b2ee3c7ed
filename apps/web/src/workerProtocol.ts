/** Messages between the page and the compile worker. */
import type { Dag, Plan } from '@stagecraft/ir';
import type { ComputeFailed, ComputeOk } from './core/computeDesign.ts';
import type { DagGraph } from './core/dagGraph.ts';
import type { MeasuredFile, MeasuredOverlay } from './core/measuredOverlay.ts';
import type { TimelinePlan } from './gantt/timelinePlan.ts';

export type WorkerRequest =
  | { type: 'compute'; revision: number; design: unknown; expanded: string[] }
  | { type: 'layout'; expanded: string[] }
  | { type: 'pass'; pass: string; expanded: string[] }
  | { type: 'compiled' }
  /** Measured traces set beside the design's prediction (core/measuredOverlay.ts); `id` orders replies. */
  | { type: 'measure'; id: number; design: unknown; files: MeasuredFile[] };

/**
 * A result as posted to the page: what its first frame draws. The DAG and the plan's instructions
 * stay in the worker and follow in one message, 'compiled', once the page has drawn the result;
 * until then the plan comes as its outline (planOutline). The instructions were half of the
 * result's clone: at 20k ops about 16 ms of the worker's CPU and as much of the page's, all of it
 * before the first frame.
 */
export type PostedResult = (Omit<ComputeOk, 'dag' | 'plan'> & { plan: TimelinePlan }) | ComputeFailed;

export type WorkerReply =
  | { type: 'computed'; revision: number; result: PostedResult; workerMs: number }
  | { type: 'compiled'; revision: number; dag: Dag; plan: Plan }
  | { type: 'layout'; revision: number; graph: DagGraph }
  | { type: 'pass'; revision: number; pass: string; graph: DagGraph | null }
  | { type: 'measured'; id: number; overlay: MeasuredOverlay };
