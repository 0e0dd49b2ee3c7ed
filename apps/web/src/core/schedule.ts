/**
 * The `schedule` macro in the editor: switching its builder (the palette's schedule items) and
 * expanding it into the place + split + order it stands for, so a user can edit what runs.
 */
import type {
  Design,
  Directive,
  Model,
  ScheduleBuilderName,
  ScheduleDirective,
  SplitDirective,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '@stagecraft/passes';
import { getBuilder } from '@stagecraft/passes';
import { type Outcome, refused } from './action.ts';
import { replaceDirective, withDirectives } from './program.ts';

export function deviceCount(design: Design): number {
  const c = design.cluster;
  if ('kind' in c && c.kind === 'ideal') return c.devices;
  if ('kind' in c && c.kind === 'custom') return c.nodes * c.gpusPerNode;
  // Preset clusters: eight GPUs per node on every DGX-class preset.
  return ('nodes' in c ? c.nodes : 1) * 8;
}

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

const SCHEDULE_PARTS = new Set(['split', 'place', 'order']);

/** The palette's schedule items: the program runs `builder` on the same ranks and microbatches. */
export function setSchedule(design: Design, builder: ScheduleBuilderName): Outcome {
  const b = getBuilder(builder);
  const at = scheduleIndex(design);
  const current = at >= 0 ? (design.directives[at] as ScheduleDirective) : undefined;
  const microbatches =
    current?.microbatches ??
    design.directives.find(
      (d): d is SplitDirective => d.op === 'split' && d.dim_name === 'MB' && d.enabled !== false,
    )?.num_microbatches ??
    8;
  const ranks = current?.ranks ?? current?.groups?.length ?? deviceCount(design);
  const chunks =
    b.fixedChunks ?? (current?.chunks && builder === current.builder ? current.chunks : b.defaultChunks);
  const next: ScheduleDirective = { op: 'schedule', builder, microbatches };
  if (current?.ranks !== undefined) next.ranks = current.ranks;
  if (current?.groups) next.groups = current.groups;
  if (current?.stream) next.stream = current.stream;
  if (chunks !== b.defaultChunks) next.chunks = chunks;
  let model = design.model;
  const stages = ppStages(model);
  const virtual = ranks * chunks;
  if (stages === undefined || stages % virtual !== 0) {
    const recut = recutModel(model, virtual);
    if (!recut)
      return refused(
        `${builder} runs ${virtual} stages (${ranks} ranks × ${chunks} chunks); the model's PP stages do not divide into them`,
      );
    model = recut;
  }
  let directives: Directive[];
  if (current) {
    directives = replaceDirective(design, at, next).directives;
  } else {
    // A hand-edited or expanded schedule: its split / place / order give way to the builder's.
    const first = design.directives.findIndex((d) => SCHEDULE_PARTS.has(d.op));
    directives = design.directives.filter((d) => !SCHEDULE_PARTS.has(d.op));
    directives.splice(Math.max(first, 0), 0, next);
  }
  return {
    ok: true,
    design: { ...withDirectives(design, directives), model },
    select: directives.indexOf(next),
  };
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
