/** `stagecraft simulate <design> [--json] [--steps n]`: one training step's timeline metrics, and the steady state. */
import { formatStageLayers, layersPerStage } from '@stagecraft/passes';
import { metricsReport, renderAsciiTimeline, type SteadyState } from '@stagecraft/sim';
import { simulateRun, steadyRun } from '@stagecraft/workflow';
import { simulationSummary } from '../format.ts';
import type { GlobalOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { compileDesign, loadDesign, reportIssues } from '../load.ts';

/** Designs up to this many ops get an ASCII timeline in the readable summary. */
export const TIMELINE_MAX_OPS = 2_000;

export interface SimulateCommand {
  kind: 'simulate';
  design: string;
  json: boolean;
  width?: number;
  steps?: number;
}

export function simulate(cmd: SimulateCommand & GlobalOptions, io: Io, columns?: number): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  const run = compileDesign(design, cmd.design, cmd, io);
  if (!run) return 1;
  const { plan, ops } = run.compiled;
  const timeline = !cmd.json && ops <= TIMELINE_MAX_OPS;

  const { result: simulated, ms: simulateMs } = simulateRun(run, timeline);
  if (!simulated.ok) {
    reportIssues(simulated.errors, cmd.design, io);
    return 1;
  }
  const { sim } = simulated;
  let steady: SteadyState | undefined;
  if (cmd.steps !== undefined) {
    const r = steadyRun(run, cmd.steps);
    if (!r.ok) {
      reportIssues(r.errors, cmd.design, io);
      return 1;
    }
    steady = r.steady;
  }
  const timings = { compileMs: run.compileMs, simulateMs };

  if (cmd.json) {
    const report = metricsReport(design.name, ops, sim, timings, steady);
    io.out(JSON.stringify(report));
    return 0;
  }
  const width = cmd.width ?? columns ?? 100;
  const stages = layersPerStage(design.model);
  const summary = {
    name: design.name,
    file: cmd.design,
    sim,
    ops,
    timings,
    ...(stages ? { layersPerStage: formatStageLayers(stages) } : {}),
    ...(steady ? { steady } : {}),
  };
  io.out(
    simulationSummary(
      timeline ? { ...summary, timeline: renderAsciiTimeline(sim, plan, { width }) } : summary,
    ),
  );
  return 0;
}
