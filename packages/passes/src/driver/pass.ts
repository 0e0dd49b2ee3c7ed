/**
 * A pass is a small named rewrite of the DAG that says what it reads. The manager (`runPass`),
 * not each pass, keeps a snapshot after every pass and times it, so the DAG after any pass can be
 * inspected and every node says which directive and pass made it.
 */

import type { PlanColumns } from '@stagecraft/ir';
import {
  type ArraySource,
  CompileError,
  type Dag,
  type DagParts,
  type Design,
  type DirectiveOp,
  type Issue,
  type NodeTable,
  now,
  type Plan,
  withParts,
} from '@stagecraft/ir';
import type { CompileOptions, ExpandedDirective, PassSnapshot } from './compileTypes.ts';
import type { Partition, StreamOrder } from './lanes.ts';
import { ChangedSnapshot } from './passDiff.ts';

/**
 * What passes leave in the context for later passes: a pass declares the fields it sets
 * (`Pass.writes`) and the ones it reads (`Pass.reads`), and each is set by a pass before the
 * passes that read it (passContract.ts checks both).
 */
export interface ContextState {
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

export type ContextField = keyof ContextState;

export interface PassContext extends ContextState {
  readonly design: Design;
  readonly options: Required<CompileOptions>;
  /**
   * Where a pass takes arrays it uses only while it runs (lent for the compile: ir/arrayPool.ts).
   * Nothing taken here may be left in the DAG or the context, an incremental compile keeps both,
   * unless it names the scratch it was lent from and its reader checks that against its own.
   */
  readonly scratch: ArraySource;
  /** The program after macro expansion; set by `expand-schedule`, before the first pass. */
  program: ExpandedDirective[];
}

/**
 * What a pass reads besides its input DAG: directive kinds of the expanded program (each with its
 * index and path), `name`, the design's name, and what earlier passes left in the context
 * (`ContextField`). The model, the cluster and the op limit are not listed: every pass may read
 * them, and a change there compiles from scratch.
 */
export type PassInput = DirectiveOp | 'name' | ContextField;

export interface Pass {
  readonly name: string;
  /**
   * Everything the pass reads (`PassInput`): an incremental compile reruns it, and every pass
   * after it, only when one of these changed (a context field changes only when an earlier pass
   * reran, which reruns this one too). Too short a list gives stale plans; the property
   * test of `compileIncremental` compares with full compiles after random edits.
   */
  readonly reads: readonly PassInput[];
  /**
   * The context fields the pass sets (`ContextState`), none for most: a later pass may read only
   * what an earlier one declares here.
   */
  readonly writes: readonly ContextField[];
  /** Returns the DAG after the pass; returning the input means the pass changed nothing. */
  run(dag: Dag, ctx: PassContext): Dag;
}

export type PassOutcome = { ok: true; dag: Dag } | { ok: false; errors: Issue[] };

/**
 * Runs one pass as the pass manager does for every pass: timed, its snapshot appended to
 * `snapshots` (with the DAG after it when snapshots are kept and it changed the DAG), and a
 * refusal of the design turned into its issues.
 */
export function runPass(pass: Pass, dag: Dag, ctx: PassContext, snapshots: PassSnapshot[]): PassOutcome {
  const t0 = now();
  try {
    const next = pass.run(dag, ctx);
    const ms = now() - t0;
    snapshots.push(
      ctx.options.keepSnapshots && next !== dag
        ? new ChangedSnapshot(pass.name, ms, dag, next)
        : { pass: pass.name, ms },
    );
    return { ok: true, dag: next };
  } catch (e) {
    snapshots.push({ pass: pass.name, ms: now() - t0 });
    if (e instanceof CompileError) return { ok: false, errors: e.issues };
    if (e instanceof RangeError) {
      // An allocation or call stack exhausted by a pathological program is still the user's input.
      const message = `the design is too large to compile (${e.message}); lower --max-ops or its size`;
      return { ok: false, errors: [{ path: '', message }] };
    }
    throw e;
  }
}

/**
 * The DAG a pass returns: its input with some parts and, optionally, the node table replaced. The
 * new table keeps the input's rows at their indices (edited in place or not at all) and appends
 * any others, so with snapshots kept the two DAGs share the node objects of unchanged rows.
 */
export function rewritten(dag: Dag, ctx: PassContext, parts: Partial<DagParts>, table?: NodeTable): Dag {
  return withParts(dag, parts, table, ctx.options.keepSnapshots);
}
