/**
 * The `schedule` macro in the editor: what it runs on (devices, the model's PP stages) and
 * expanding it into the place + split + order it stands for, so a user can edit what runs.
 * Switching its builder is builderSwitch.ts.
 */
import type { Design, Model } from '@stagecraft/ir';
import type { ExpandedDirective } from '@stagecraft/passes';
import { type Outcome, refused } from './action.ts';
import { withDirectives } from './program.ts';

/** PP stages of the model, or undefined when they are not known without lowering it. */
export function ppStages(model: Model): number | undefined {
  if (model.kind === 'synthetic' && 'stages' in model) return model.stages;
  if (model.kind === 'synthetic')
    return new Set(model.blocks.map((b) => b.tags.PP).filter((v) => v !== undefined)).size;
  return model.annotate?.cuts ? model.annotate.cuts.length + 1 : model.annotate?.PP;
}

/** The same model cut into `stages` PP regions: per-stage costs and bytes scale so the total stays. */
export function recutModel(model: Model, stages: number): Model | undefined {
  if (model.kind === 'synthetic' && 'stages' in model) {
    const k = model.stages / stages;
    const scale = (v: number | undefined) => (v === undefined ? undefined : v * k);
    const costs = { ...model.costs, F: model.costs.F * k, BI: model.costs.BI * k, BW: model.costs.BW * k };
    if (model.costs.FandB !== undefined) costs.FandB = model.costs.FandB * k;
    if (model.costs.UPD !== undefined) costs.UPD = model.costs.UPD * k;
    const next: Model = { ...model, stages, costs };
    const a = scale(model.activationBytes);
    const p = scale(model.paramBytes);
    if (a !== undefined) next.activationBytes = a;
    if (p !== undefined) next.paramBytes = p;
    return next;
  }
  if (model.kind === 'transformer') {
    const { cuts: _cuts, ...annotate } = model.annotate ?? {};
    return { ...model, annotate: { ...annotate, PP: stages } };
  }
  return undefined;
}

/** The index of the program's schedule directive, if it has one. */
export function scheduleIndex(design: Design): number {
  return design.directives.findIndex((d) => d.op === 'schedule' && d.enabled !== false);
}

/** Replaces the `schedule` at `index` by the directives the compiler expanded it into. */
export function expandSchedule(
  design: Design,
  index: number,
  program: readonly ExpandedDirective[],
): Outcome {
  const d = design.directives[index];
  if (d?.op !== 'schedule') return refused(`directives[${index}] is not a schedule`);
  const expansion = program.filter((e) => e.source === index).map((e) => e.directive);
  if (expansion.length === 0)
    return refused('the schedule can be expanded once the design compiles (fix the errors shown first)');
  const list = design.directives.slice();
  list.splice(index, 1, ...expansion);
  return { ok: true, design: withDirectives(design, list), select: index };
}
