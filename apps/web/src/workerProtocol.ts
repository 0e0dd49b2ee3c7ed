/** Messages between the page and the compile worker. */
import type { Dag } from '@stagecraft/ir';
import type { ComputeFailed, ComputeOk } from './core/computeDesign.ts';
import type { DagGraph } from './core/dagGraph.ts';

export type WorkerRequest =
  | { type: 'compute'; revision: number; design: unknown; expanded: string[] }
  | { type: 'layout'; expanded: string[] }
  | { type: 'pass'; pass: string; expanded: string[] }
  | { type: 'dag' };

/**
 * A result as posted to the page: the DAG stays in the worker (cloning it would delay the
 * timeline) and follows in its own message once the page has drawn the result.
 */
export type PostedResult = Omit<ComputeOk, 'dag'> | ComputeFailed;

export type WorkerReply =
  | { type: 'computed'; revision: number; result: PostedResult; workerMs: number }
  | { type: 'dag'; revision: number; dag: Dag }
  | { type: 'layout'; revision: number; graph: DagGraph }
  | { type: 'pass'; revision: number; pass: string; graph: DagGraph | null };
