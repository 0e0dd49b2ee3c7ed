/** Messages between the page and the compile worker. */
import type { ComputeResult } from './core/computeDesign.ts';
import type { DagGraph } from './core/dagGraph.ts';

export type WorkerRequest =
  | { type: 'compute'; revision: number; design: unknown; expanded: string[] }
  | { type: 'layout'; expanded: string[] }
  | { type: 'pass'; pass: string; expanded: string[] };

export type WorkerReply =
  | { type: 'computed'; revision: number; result: ComputeResult; workerMs: number }
  | { type: 'layout'; revision: number; graph: DagGraph }
  | { type: 'pass'; revision: number; pass: string; graph: DagGraph | null };
