/** Messages between the page and the compile worker. */
import type { Dag, Plan } from '@stagecraft/ir';
import type { ComputeFailed, ComputeOk } from './core/computeDesign.ts';
import type { PostedGraph } from './core/graphWire.ts';
import type { MeasuredFile, MeasuredOverlay } from './core/measuredOverlay.ts';
import type { PostedEvents } from './core/timelineWire.ts';
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

/**
 * Timelines longer than this go to the page in parts of this many events, one message each, before
 * their result: the page reads a message in one task, and DeepSeek-V3's 70k events (10 MB) took it
 * 90–120 ms to read at once, garbage collection after it not counted. Parts of 8,192 still took
 * 0.1–0.16 s each to read and unpack with the garbage collection after (2026-12-07 traces at load
 * 3–25, issue 30 §5 bounds a task by 100 ms): half that.
 */
export const TIMELINE_PART = 4096;

export type WorkerReply =
  /** A part of the next 'computed' result's timeline, in order (see TIMELINE_PART), packed. */
  | { type: 'timeline'; revision: number; events: PostedEvents }
  /** `timelineParts`: the timeline came before it in that many parts (its own is left empty). */
  | { type: 'computed'; revision: number; result: PostedResult; workerMs: number; timelineParts?: number }
  | { type: 'compiled'; revision: number; dag: Dag; plan: Plan }
  /** Graphs come packed (core/graphWire.ts): the page unpacks them. */
  | { type: 'layout'; revision: number; graph: PostedGraph }
  | { type: 'pass'; revision: number; pass: string; graph: PostedGraph | null }
  | { type: 'measured'; id: number; overlay: MeasuredOverlay };
