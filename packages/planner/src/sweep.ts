/**
 * A design's step, bubble and peak memory against its microbatch count or its pipeline stages:
 * the design recompiled at each value, everything else as it is. Also the package's entry for a
 * browser (`@stagecraft/planner/sweep`): it reaches none of the layout search's Node threads.
 */
import type { Design, Directive, ScheduleDirective } from '@stagecraft/ir';
import { getBuilder } from '@stagecraft/passes';
import { runDesign, simulateRun } from '@stagecraft/workflow';
import type { SweepAxis, SweepPoint } from './request.ts';

export type { SweepAxis, SweepPoint } from './request.ts';

export function sweep(design: Design, axis: SweepAxis, values: readonly number[]): SweepPoint[] {
  return values.map((value) => {
    const changed = withValue(design, axis, value);
    if (typeof changed === 'string') return { value, error: changed };
    const run = runDesign(changed);
    if (!run.ok) return { value, error: run.errors.map((e) => `${e.path}: ${e.message}`).join('; ') };
    const simulated = simulateRun(run, false).result;
    if (!simulated.ok)
      return { value, error: simulated.errors.map((e) => `${e.path}: ${e.message}`).join('; ') };
    const { sim } = simulated;
    return {
      value,
      stepMs: sim.makespanMs,
      bubbleRatio: sim.bubbleRatio,
      peakMemoryBytes: Math.max(0, ...sim.devices.map((d) => d.peakMemoryBytes)),
    };
  });
}

/** The design with its schedule at `value` microbatches or ranks, or why it cannot be. */
function withValue(design: Design, axis: SweepAxis, value: number): Design | string {
  const at = design.directives.findIndex((d) => d.op === 'schedule');
  if (at < 0) return 'the design has no schedule directive to sweep';
  const schedule = design.directives[at] as ScheduleDirective;
  if (!Number.isInteger(value) || value < 1) return `${value} is not a positive whole number`;
  const directives: Directive[] = [...design.directives];
  if (axis === 'microbatches') {
    directives[at] = { ...schedule, microbatches: value, edits: undefined };
    return { ...design, directives: directives.map(dropUndefined) };
  }
  if (schedule.groups)
    return 'the schedule places its ranks on explicit groups: sweep the stages by editing them';
  const chunks = schedule.chunks ?? getBuilder(schedule.builder).defaultChunks;
  directives[at] = { ...schedule, ranks: value, edits: undefined };
  const regions = value * chunks;
  const model = design.model;
  let changedModel: Design['model'];
  if (model.kind === 'transformer') changedModel = { ...model, annotate: { ...model.annotate, PP: regions } };
  else if ('stages' in model) changedModel = { ...model, stages: regions };
  else return 'a model of explicit blocks has its stages fixed by their tags';
  const cluster =
    design.cluster.kind === 'ideal' && design.cluster.devices < value
      ? { ...design.cluster, devices: value }
      : design.cluster;
  return { ...design, model: changedModel, cluster, directives: directives.map(dropUndefined) };
}

function dropUndefined(d: Directive): Directive {
  return Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)) as Directive;
}
