/**
 * design → expanded program → DAG → passes → plan. The pipeline order is fixed (design.md §4);
 * each directive kind is handled by its pass, in program order within it.
 */
import {
  type ArraySource,
  CompileError,
  type Dag,
  type Design,
  lend,
  now,
  planOpCount,
} from '@stagecraft/ir';
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
import { replicatePass } from '../passes/replicate.ts';
import { shardPass } from '../passes/shard.ts';
import { shardTensorPass } from '../passes/shardTensor.ts';
import { splitPass } from '../passes/split.ts';
import { splitBackwardPass } from '../passes/splitBackward.ts';
import { streamOrderPass } from '../passes/streamOrder.ts';
import { streamsPass } from '../passes/streams.ts';
import { validatePlanPass } from '../passes/validatePlanPass.ts';
import type { CompileOptions, CompileResult, PassSnapshot } from './compileTypes.ts';
import { type Pass, type PassContext, runPasses } from './pass.ts';

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
  recomputePass,
  offloadPass,
  orderPass,
  partitionPass,
  streamOrderPass,
  lowerPlanPass,
  validatePlanPass,
];

export function compile(design: Design, options: CompileOptions = {}): CompileResult {
  const loan = lend();
  try {
    return compileWith(design, options, loan);
  } finally {
    loan.close();
  }
}

function compileWith(design: Design, options: CompileOptions, scratch: ArraySource): CompileResult {
  const t0 = now();
  const ctx: PassContext = {
    design,
    options: { maxOps: options.maxOps ?? DEFAULT_MAX_OPS, keepSnapshots: options.keepSnapshots ?? true },
    scratch,
    program: [],
  };
  const snapshots: PassSnapshot[] = [];
  let dag: Dag;
  try {
    const t = now();
    const blocks = lowerModel(design.model);
    ctx.program = expandProgram(ctx, stageValues(blocks), blocks.length);
    snapshots.push({ pass: 'expand-schedule', ms: now() - t });
    const tb = now();
    dag = buildDag(blocks);
    snapshots.push({ pass: 'build-dag', ms: now() - tb, ...(ctx.options.keepSnapshots ? { dag } : {}) });
  } catch (e) {
    if (e instanceof CompileError) return { ok: false, errors: e.issues, snapshots };
    throw e;
  }
  const run = runPasses(PASSES, dag, ctx);
  snapshots.push(...run.snapshots);
  if (!run.ok) return { ok: false, errors: run.errors, snapshots };
  const plan = ctx.plan!;
  return {
    ok: true,
    plan,
    dag: run.dag,
    program: ctx.program,
    snapshots,
    ops: ctx.planOps ?? planOpCount(plan),
    compileMs: now() - t0,
  };
}
