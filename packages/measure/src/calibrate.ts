/**
 * The closed loop in one call: compile the design, match the measured step to its plan, fit the
 * costs, write the calibrated design and replay it against the measurement.
 */
import {
  type Dag,
  type Design,
  type Issue,
  IssueList,
  issue,
  type Plan,
  planFingerprint,
  tensorParallelDegree,
} from '@stagecraft/ir';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import { type CalibrationOrigin, calibratedDesign } from './calibratedDesign.ts';
import { type CostFits, fitCosts } from './fitCosts.ts';
import { fitTable } from './fitTable.ts';
import { median } from './linearFit.ts';
import { matchPlan, type PlanMatch, steadySteps } from './matchPlan.ts';
import { type MeasuredStep, stepTimesMs } from './measuredStep.ts';
import { predictedCosts } from './predictedCosts.ts';
import type { MeasuredCosts } from './readers/stageTable.ts';
import { type Replay, replay } from './replay.ts';

export interface Calibration {
  readonly ok: true;
  readonly design: Design;
  readonly fits: CostFits;
  readonly match: PlanMatch;
  /** The original design's prediction against the measurement. */
  readonly before: Replay;
  /** The calibrated design's. */
  readonly after: Replay;
  readonly unmeasured: readonly string[];
  readonly notes: readonly string[];
}

export type CalibrationResult = Calibration | { ok: false; errors: Issue[] };

export function calibrate(
  design: Design,
  measured: MeasuredStep,
  origin: CalibrationOrigin,
): CalibrationResult {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) return { ok: false, errors: run.errors };
  const { plan, dag } = run.compiled;
  const match = matchPlan(plan, measured);
  const refused = refusedMatch(plan, match, measured);
  if (refused) return refused;
  const simulated = simulateRun(run, true).result;
  if (!simulated.ok) return { ok: false, errors: simulated.errors };
  const fits = fitCosts(plan, dag, match, measured.alignedClocks);
  const made = calibratedDesign(
    design,
    fits,
    predictedCosts(dag, simulated.sim.timeline ?? []),
    shardsOf(dag),
    origin,
  );

  const measuredStepMs = stepMsOver(measured, fits.steps);
  const before = replay(
    plan,
    simulated.sim,
    match.matched,
    fits.steps,
    measured.alignedClocks,
    measuredStepMs,
  );
  const again = runDesign(made.design, { keepSnapshots: false });
  if (!again.ok)
    return {
      ok: false,
      errors: again.errors.map((e) => issue(e.path, `the calibrated design does not compile: ${e.message}`)),
    };
  const resimulated = simulateRun(again, true).result;
  if (!resimulated.ok) return { ok: false, errors: resimulated.errors };
  const after = replay(
    again.compiled.plan,
    resimulated.sim,
    matchPlan(again.compiled.plan, measured).matched,
    fits.steps,
    measured.alignedClocks,
    measuredStepMs,
  );
  return {
    ok: true,
    design: made.design,
    fits,
    match,
    before,
    after,
    unmeasured: made.unmeasured,
    notes: made.notes,
  };
}

/** Calibration from a stage table: no step was measured, so the result is the prediction before and after. */
export interface TableCalibration {
  readonly ok: true;
  readonly design: Design;
  readonly fits: CostFits;
  readonly predictedStepMs: { before: number; after: number };
  readonly unmeasured: readonly string[];
  readonly notes: readonly string[];
}

export function calibrateFromTable(
  design: Design,
  costs: MeasuredCosts,
  origin: CalibrationOrigin,
): TableCalibration | { ok: false; errors: Issue[] } {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) return { ok: false, errors: run.errors };
  const simulated = simulateRun(run, true).result;
  if (!simulated.ok) return { ok: false, errors: simulated.errors };
  const { plan, dag } = run.compiled;
  const predicted = predictedCosts(dag, simulated.sim.timeline ?? []);
  const { fits, unknownStages } = fitTable(plan, dag, costs, predicted);
  if (unknownStages.length > 0) {
    // Rows by stage once: a table of a million stages searched per unknown stage never ended.
    const rowOf = new Map<number, number>();
    costs.stages.forEach((r, i) => {
      if (!rowOf.has(r.stage)) rowOf.set(r.stage, i);
    });
    const errors = new IssueList();
    for (const s of unknownStages)
      errors.push(
        issue(
          ['stages', rowOf.get(s)!, 'stage'],
          `the design has no pipeline stage ${s} (no block is tagged PP=${s})`,
        ),
      );
    return { ok: false, errors: errors.issues() };
  }
  const made = calibratedDesign(design, fits, predicted, shardsOf(dag), origin);
  const again = runDesign(made.design, { keepSnapshots: false });
  if (!again.ok) return { ok: false, errors: again.errors };
  const after = simulateRun(again, false).result;
  if (!after.ok) return { ok: false, errors: after.errors };
  return {
    ok: true,
    design: made.design,
    fits,
    predictedStepMs: { before: simulated.sim.makespanMs, after: after.sim.makespanMs },
    unmeasured: made.unmeasured,
    notes: made.notes,
  };
}

/** Shards of each tensor-parallel block: its measured time is one shard's. */
function shardsOf(dag: Dag): Map<number, number> {
  const tp = new Map<number, number>();
  for (const region of dag.tensorParallel ?? [])
    for (const b of region.blocks) tp.set(b, tensorParallelDegree(dag, region));
  return tp;
}

/**
 * A trace that cannot measure this plan: one recording another plan's fingerprint, devices it
 * does not have, or no span naming its instructions.
 */
function refusedMatch(
  plan: Plan,
  match: PlanMatch,
  measured: MeasuredStep,
): { ok: false; errors: Issue[] } | undefined {
  const fingerprint = planFingerprint(plan);
  if (measured.planFingerprint !== undefined && measured.planFingerprint !== fingerprint)
    return {
      ok: false,
      errors: [
        issue(
          'otherData.planFingerprint',
          `the trace was measured from plan ${measured.planFingerprint}, and this design compiles to plan ${fingerprint}: its schedule, microbatches, stages or devices differ; open the design the trace measured`,
        ),
      ],
    };
  if (match.unknownDevices.length > 0)
    return {
      ok: false,
      errors: [
        issue(
          '',
          `the trace measures device${match.unknownDevices.length > 1 ? 's' : ''} ${match.unknownDevices.join(', ')}, which the design's plan does not have (devices ${plan.devices[0]?.device ?? 0}–${plan.devices.at(-1)?.device ?? 0})`,
        ),
      ],
    };
  if (match.matched.length === 0)
    return {
      ok: false,
      errors: [
        issue(
          '',
          'no span of the trace names an instruction of the design\'s plan: wrap each op in record_function("<instruction id>") with the ids of `stagecraft compile`',
        ),
      ],
    };
  // A trace of another design shares a few ids (F.b0.mb0) with this plan: fitting those few wrote
  // a design whose dispatch time took the blame for every op that was never matched.
  const matchedFirst = match.matched.reduce((n, s) => n + (s.step === 0 ? 1 : 0), 0);
  if (match.unmatched.length > matchedFirst) {
    const spans = matchedFirst + match.unmatched.length;
    const planned = matchedFirst + match.missing.length;
    const n = (x: number) => x.toLocaleString('en-US');
    return {
      ok: false,
      errors: [
        issue(
          '',
          `the trace does not cover the design's plan: ${n(match.unmatched.length)} of its ${n(spans)} spans (first step) name no instruction of the plan, and ${n(match.missing.length)} of the plan's ${n(planned)} instructions on the measured devices have no span; was it recorded from another design?`,
        ),
      ],
    };
  }
  return undefined;
}

/** The design's prediction against a measured step, as it is (nothing fitted). */
export interface MeasuredComparison {
  readonly ok: true;
  readonly match: PlanMatch;
  readonly replay: Replay;
  readonly steps: readonly number[];
}

export function compareMeasured(
  design: Design,
  measured: MeasuredStep,
): MeasuredComparison | { ok: false; errors: Issue[] } {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) return { ok: false, errors: run.errors };
  const { plan } = run.compiled;
  const match = matchPlan(plan, measured);
  const refused = refusedMatch(plan, match, measured);
  if (refused) return refused;
  const simulated = simulateRun(run, true).result;
  if (!simulated.ok) return { ok: false, errors: simulated.errors };
  const steps = steadySteps(match.matched);
  const measuredStepMs = stepMsOver(measured, steps);
  return {
    ok: true,
    match,
    replay: replay(plan, simulated.sim, match.matched, steps, measured.alignedClocks, measuredStepMs),
    steps,
  };
}

/** The measured step: the median wall time of the steps a fit or comparison reads. */
function stepMsOver(measured: MeasuredStep, steps: readonly number[]): number {
  const read = new Set(steps);
  return median(stepTimesMs(measured).filter((_, i) => read.has(i)));
}
