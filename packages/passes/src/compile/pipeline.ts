/**
 * The one way through the compiler, which `compile` and `compileIncremental` both take: the
 * program expanded and the unsplit DAG built (the head), then every pass of `PASSES` in order,
 * each run by the pass manager. The order is fixed here and nowhere else: no pass runs another,
 * so what a pass finds in the context is what the passes before it in this list left there.
 */
import { type Dag, now, planOpCount } from '@stagecraft/ir';
import type { CompileResult, PassSnapshot } from '../driver/compileTypes.ts';
import { type ContextState, type Pass, type PassContext, type PassOutcome, runPass } from '../driver/pass.ts';
import { ChangedSnapshot } from '../driver/passDiff.ts';
import { lowerPlanPass } from '../lower/lowerPlan.ts';
import { lowerModel, stageValues } from '../model/lowerModel.ts';
import { buildDag } from '../passes/buildDag.ts';
import { checkSupportedPass } from '../passes/checkSupported.ts';
import { expandProgram } from '../passes/expandSchedule.ts';
import { insertOptimizerStepPass } from '../passes/insertOptimizerStep.ts';
import { insertSendRecvPass } from '../passes/insertSendRecv.ts';
import { offloadPass } from '../passes/offload.ts';
import { orderPass } from '../passes/order.ts';
import { partitionPass } from '../passes/partition.ts';
import { placePass } from '../passes/place.ts';
import { recomputePass } from '../passes/recompute.ts';
import { reduceCopiesPass } from '../passes/reduceCopies.ts';
import { replicatePass } from '../passes/replicate.ts';
import { shardPass } from '../passes/shard.ts';
import { shardSequencePass } from '../passes/shardSequence.ts';
import { shardTensorPass } from '../passes/shardTensor.ts';
import { splitPass } from '../passes/split.ts';
import { splitBackwardPass } from '../passes/splitBackward.ts';
import { streamOrderPass } from '../passes/streamOrder.ts';
import { streamsPass } from '../passes/streams.ts';
import { validatePlanPass } from '../passes/validatePlanPass.ts';
import { mergeSubgroupDirectives } from '../program/subgroupDirectives.ts';

export const DEFAULT_MAX_OPS = 2_000_000;

/** The passes after the DAG is built, in the order they run. */
export const PASSES: readonly Pass[] = [
  checkSupportedPass,
  splitPass,
  splitBackwardPass,
  placePass,
  insertSendRecvPass,
  streamsPass,
  insertOptimizerStepPass,
  replicatePass,
  shardPass,
  shardTensorPass,
  shardSequencePass,
  reduceCopiesPass,
  recomputePass,
  offloadPass,
  orderPass,
  // Lanes, then their order, then the plan: lowering reads both of its own input DAG.
  partitionPass,
  streamOrderPass,
  lowerPlanPass,
  validatePlanPass,
];

/**
 * Expands the program against the model's blocks and builds the unsplit DAG from them, appending
 * the `expand-schedule` and `build-dag` snapshots. `built`, the `build-dag` snapshot of an earlier
 * compile of the same model, is reused rather than built again. Throws CompileError.
 */
export function expandAndBuild(ctx: PassContext, snapshots: PassSnapshot[], built?: PassSnapshot): Dag {
  const t = now();
  const blocks = built ? built.dag!.blocks : lowerModel(ctx.design.model);
  ctx.program = mergeSubgroupDirectives(expandProgram(ctx, stageValues(blocks), blocks.length));
  snapshots.push({ pass: 'expand-schedule', ms: now() - t });
  if (built) {
    snapshots.push(built);
    return built.dag!;
  }
  const tb = now();
  const dag = buildDag(blocks);
  const ms = now() - tb;
  snapshots.push(
    ctx.options.keepSnapshots
      ? new ChangedSnapshot('build-dag', ms, undefined, dag)
      : { pass: 'build-dag', ms },
  );
  return dag;
}

/** What a pass found before it ran, for an incremental compile to resume at it. */
export interface PassStep {
  input: Dag;
  ctx: ContextState;
  /** What the pass read of the program and the design (`Pass.reads`), canonically. */
  signature: string;
  snapshot: PassSnapshot;
}

/**
 * What passes left in the context (partition, stream order, plan, …). Not the scratch: it is lent
 * to one compile, and a compile resuming here runs on its own.
 */
function contextState(ctx: PassContext): ContextState {
  const { design: _d, options: _o, program: _p, scratch: _s, ...state } = ctx;
  return state;
}

/**
 * Runs `PASSES` from the `from`-th on, appending each snapshot to `snapshots`; with `trail`, also
 * what each pass found before it ran (its signature from `trail.signatures`). Stops at the first
 * pass that refuses the design.
 */
export function runPipeline(
  dag: Dag,
  ctx: PassContext,
  from: number,
  snapshots: PassSnapshot[],
  trail?: { steps: PassStep[]; signatures: readonly string[] },
): PassOutcome {
  let current = dag;
  for (let i = from; i < PASSES.length; i++) {
    const pass = PASSES[i]!;
    const before = trail ? contextState(ctx) : undefined;
    const outcome = runPass(pass, current, ctx, snapshots);
    if (trail)
      trail.steps.push({
        input: current,
        ctx: before!,
        signature: trail.signatures[i]!,
        snapshot: snapshots[snapshots.length - 1]!,
      });
    if (!outcome.ok) return outcome;
    current = outcome.dag;
  }
  return { ok: true, dag: current };
}

/** The answer of a compile whose every pass ran and succeeded. */
export function compiledResult(
  ctx: PassContext,
  dag: Dag,
  snapshots: PassSnapshot[],
  t0: number,
): Extract<CompileResult, { ok: true }> {
  const plan = ctx.plan!;
  return {
    ok: true,
    plan,
    dag,
    program: ctx.program,
    snapshots,
    ops: ctx.planOps ?? planOpCount(plan),
    compileMs: now() - t0,
  };
}
