/**
 * `compile`: a design to its plan in one go, through the pipeline `compileIncremental` takes too,
 * keeping nothing for a next compile (so with snapshots off no DAG outlives its pass).
 */
import { CompileError, type Dag, type Design, lend, now } from '@stagecraft/ir';
import type { CompileOptions, CompileResult, PassSnapshot } from '../driver/compileTypes.ts';
import type { PassContext } from '../driver/pass.ts';
import { compiledResult, DEFAULT_MAX_OPS, expandAndBuild, runPipeline } from './pipeline.ts';

export function compile(design: Design, options: CompileOptions = {}): CompileResult {
  const t0 = now();
  // Arrays passes use while they run are lent for this compile (pass.ts `scratch`).
  const loan = lend();
  try {
    const ctx: PassContext = {
      design,
      options: { maxOps: options.maxOps ?? DEFAULT_MAX_OPS, keepSnapshots: options.keepSnapshots ?? true },
      scratch: loan,
      program: [],
    };
    const snapshots: PassSnapshot[] = [];
    let dag: Dag;
    try {
      dag = expandAndBuild(ctx, snapshots);
    } catch (e) {
      if (e instanceof CompileError) return { ok: false, errors: e.issues, snapshots };
      throw e;
    }
    const run = runPipeline(dag, ctx, 0, snapshots);
    return run.ok
      ? compiledResult(ctx, run.dag, snapshots, t0)
      : { ok: false, errors: run.errors, snapshots };
  } finally {
    loan.close();
  }
}
