/** `stagecraft simulate <design> [--json]`: one training step's timeline metrics. */
import { formatStageLayers, layersPerStage } from '@stagecraft/passes';
import { metricsReport, renderAsciiTimeline, simulate as simulatePlan } from '@stagecraft/sim';
import type { Command } from '../args.ts';
import { simulationSummary } from '../format.ts';
import type { Io } from '../io.ts';
import { compileDesign, loadDesign, reportIssues } from '../load.ts';

/** Designs up to this many ops get an ASCII timeline in the readable summary. */
export const TIMELINE_MAX_OPS = 2_000;

export function simulate(cmd: Extract<Command, { kind: 'simulate' }>, io: Io, columns?: number): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  const compiled = compileDesign(design, cmd.design, cmd, io);
  if (!compiled) return 1;
  const { plan, ops } = compiled.result;
  const timeline = !cmd.json && ops <= TIMELINE_MAX_OPS;

  const t0 = performance.now();
  const simulated = simulatePlan(plan, { keepTimeline: timeline });
  const simulateMs = performance.now() - t0;
  if (!simulated.ok) {
    reportIssues(simulated.errors, cmd.design, io);
    return 1;
  }
  const { sim } = simulated;
  const timings = { compileMs: compiled.ms, simulateMs };

  if (cmd.json) {
    const report = metricsReport(design.name, ops, sim, timings);
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
  };
  io.out(
    simulationSummary(
      timeline ? { ...summary, timeline: renderAsciiTimeline(sim, plan, { width }) } : summary,
    ),
  );
  return 0;
}
