/**
 * A pass is a small named rewrite of the DAG. The manager (`runPasses`), not each pass, keeps a
 * snapshot after every pass and times it, so the DAG after any pass can be inspected and every
 * node says which directive and pass made it.
 */

import type { PlanColumns } from '@stagecraft/ir';
import {
  type ArraySource,
  CompileError,
  type Dag,
  type DagParts,
  type Design,
  type Issue,
  type NodeTable,
  now,
  type Plan,
  withParts,
} from '@stagecraft/ir';
import type { Partition } from '../passes/partition.ts';
import type { StreamOrder } from '../passes/streamOrder.ts';
import type { CompileOptions, ExpandedDirective, PassSnapshot } from './compileTypes.ts';

export interface PassContext {
  readonly design: Design;
  readonly options: Required<CompileOptions>;
  /**
   * Where a pass takes arrays it uses only while it runs (lent for the compile: ir/arrayPool.ts).
   * Nothing taken here may be left in the DAG or the context: an incremental compile keeps both.
   */
  readonly scratch: ArraySource;
  /** The program after macro expansion; set by `expand-schedule`. */
  program: ExpandedDirective[];
  /** Ops of each device group by stream; set by `partition`. */
  partition?: Partition;
  /** Per device group and stream, the execution order; set by `stream-order`. */
  streamOrder?: StreamOrder;
  /** Set by `lower-plan`. */
  plan?: Plan;
  /** Instructions in `plan`, each overlap member counted; set by `lower-plan`. */
  planOps?: number;
  /** The plan as integer columns, for validation; set by `lower-plan`. */
  planColumns?: { readonly plan: Plan; readonly columns: PlanColumns };
}

export interface Pass {
  readonly name: string;
  /** Returns the DAG after the pass; returning the input means the pass changed nothing. */
  run(dag: Dag, ctx: PassContext): Dag;
}

export type PassRun =
  | { ok: true; dag: Dag; snapshots: PassSnapshot[] }
  | { ok: false; errors: Issue[]; snapshots: PassSnapshot[]; failedPass: string };

export function runPasses(passes: readonly Pass[], initial: Dag, ctx: PassContext): PassRun {
  const snapshots: PassSnapshot[] = [];
  let dag = initial;
  for (const pass of passes) {
    const t0 = now();
    try {
      const next = pass.run(dag, ctx);
      const snap: PassSnapshot = { pass: pass.name, ms: now() - t0 };
      if (ctx.options.keepSnapshots && next !== dag) snap.dag = next;
      snapshots.push(snap);
      dag = next;
    } catch (e) {
      snapshots.push({ pass: pass.name, ms: now() - t0 });
      if (e instanceof CompileError) return { ok: false, errors: e.issues, snapshots, failedPass: pass.name };
      if (e instanceof RangeError) {
        // An allocation or call stack exhausted by a pathological program is still the user's input.
        return {
          ok: false,
          errors: [
            {
              path: '',
              message: `the design is too large to compile (${e.message}); lower --max-ops or its size`,
            },
          ],
          snapshots,
          failedPass: pass.name,
        };
      }
      throw e;
    }
  }
  return { ok: true, dag, snapshots };
}

/**
 * The DAG a pass returns: its input with some parts and, optionally, the node table replaced. The
 * new table keeps the input's rows at their indices (edited in place or not at all) and appends
 * any others, so with snapshots kept the two DAGs share the node objects of unchanged rows.
 */
export function rewritten(dag: Dag, ctx: PassContext, parts: Partial<DagParts>, table?: NodeTable): Dag {
  return withParts(dag, parts, table, ctx.options.keepSnapshots);
}
