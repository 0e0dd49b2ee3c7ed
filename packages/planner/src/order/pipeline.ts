/**
 * The pipeline an order search works on: the design's `schedule` directive read as ranks,
 * microbatches and a placement of virtual stages on ranks, which the search keeps fixed; and the
 * way a set of per-rank orders goes back into the design (the schedule replaced by the split +
 * place + order program it amounts to, as the designer's Expand writes it).
 */
import {
  type Design,
  type Directive,
  type Issue,
  type MeshSpec,
  SCHEDULE_BUILDERS,
  type ScheduleBuilderName,
  type ScheduleDirective,
  scheduleRanks,
} from '@stagecraft/ir';
import {
  type BuilderInput,
  type BuiltSchedule,
  getBuilder,
  lowerModel,
  lowerSchedule,
} from '@stagecraft/passes';

export interface Pipeline {
  readonly ranks: number;
  readonly microbatches: number;
  /** Rank of each virtual stage. */
  readonly placement: readonly number[];
  readonly chunks: number;
  /** Where the schedule directive is, and it. */
  readonly at: number;
  readonly schedule: ScheduleDirective;
  /** PP values of the model, in order. */
  readonly stages: readonly number[];
  readonly groups: (number[] | MeshSpec)[];
}

export type PipelineResult = { ok: true; pipeline: Pipeline } | { ok: false; errors: Issue[] };

export function readPipeline(design: Design): PipelineResult {
  const at = design.directives.findIndex((d) => d.op === 'schedule' && d.enabled !== false);
  if (at < 0)
    return fail(
      'directives',
      'the order search needs a schedule directive: it keeps its stages and placement',
    );
  const schedule = design.directives[at] as ScheduleDirective;
  const builder = getBuilder(schedule.builder);
  if (builder.directions === 2)
    return fail(
      `directives[${at}].builder`,
      'dualpipe runs two pipelines in opposite directions; the order search takes one (dualpipev is its one-pipeline form)',
    );
  const ranks = scheduleRanks(schedule, design.cluster);
  const chunks = schedule.chunks ?? builder.defaultChunks;
  const input = builderInput(schedule.builder, ranks, schedule.microbatches, chunks);
  const problems = builder.check(input);
  if (problems.length > 0)
    return { ok: false, errors: problems.map((p) => issue(`directives[${at}].${p.field}`, p.message)) };
  let stages: number[];
  try {
    stages = stageValues(design);
  } catch (e) {
    return fail('model', e instanceof Error ? e.message : String(e));
  }
  if (stages.length === 0 || stages.length % (ranks * chunks) !== 0)
    return fail(
      'model',
      `the model's ${stages.length} PP stages do not divide into ranks × chunks = ${ranks} × ${chunks}`,
    );
  const placement = builtPlacement(builder.build(input));
  const groups = schedule.groups ?? Array.from({ length: ranks }, (_, r) => [r]);
  return {
    ok: true,
    pipeline: { ranks, microbatches: schedule.microbatches, placement, chunks, at, schedule, stages, groups },
  };
}

export function builderInput(
  builder: ScheduleBuilderName,
  ranks: number,
  microbatches: number,
  chunks: number,
): BuilderInput {
  return { builder, ranks, microbatches, chunks, virtualStages: ranks * chunks };
}

/**
 * Every builder that builds this pipeline's ranks and microbatches on the same placement, built:
 * the known constructions the search starts from and must not do worse than.
 */
export function applicableBuilders(p: Pipeline): { name: ScheduleBuilderName; built: BuiltSchedule }[] {
  const out: { name: ScheduleBuilderName; built: BuiltSchedule }[] = [];
  for (const name of SCHEDULE_BUILDERS) {
    const builder = getBuilder(name);
    if (builder.directions !== 1) continue;
    if (builder.fixedChunks !== undefined && builder.fixedChunks !== p.chunks) continue;
    const input = builderInput(name, p.ranks, p.microbatches, p.chunks);
    if (builder.check(input).length > 0) continue;
    const built = builder.build(input);
    const placement = builtPlacement(built);
    if (placement.length === p.placement.length && placement.every((r, i) => r === p.placement[i]))
      out.push({ name, built });
  }
  return out;
}

/** The design with its schedule run as `name` builds it (edits dropped: they belong to the old builder). */
export function withBuilder(design: Design, p: Pipeline, name: ScheduleBuilderName): Design {
  const { edits: _edits, ...schedule } = p.schedule;
  return replaceSchedule(design, p, [{ ...schedule, builder: name, chunks: p.chunks }]);
}

/** The design with its schedule replaced by the explicit program of `built`'s orders. */
export function withOrders(design: Design, p: Pipeline, built: BuiltSchedule): Design {
  const directives = lowerSchedule(built, {
    regionsPerStage: p.stages.length / (p.ranks * p.chunks),
    stages: [...p.stages],
    groups: p.groups,
    microbatches: p.microbatches,
    bidirectional: false,
    stream: p.schedule.stream,
  });
  // The lowered orders are lazy columns: written out as plain slots, so the design is a JSON document.
  return replaceSchedule(design, p, JSON.parse(JSON.stringify(directives)) as Directive[]);
}

function replaceSchedule(design: Design, p: Pipeline, by: Directive[]): Design {
  const directives = [...design.directives.slice(0, p.at), ...by, ...design.directives.slice(p.at + 1)];
  return { ...design, directives };
}

function builtPlacement(built: BuiltSchedule): number[] {
  const placement = built.placement;
  if (!Array.isArray(placement)) throw new Error('a one-pipeline builder gave a placement per direction');
  return [...(placement as readonly number[])];
}

/** The model's PP values in the order its blocks carry them (as the schedule's expansion reads them). */
function stageValues(design: Design): number[] {
  const seen: number[] = [];
  for (const b of lowerModel(design.model)) {
    const v = b.tags.PP;
    if (typeof v === 'number' && !seen.includes(v)) seen.push(v);
  }
  return seen;
}

const issue = (path: string, message: string): Issue => ({ path, message });
const fail = (path: string, message: string): PipelineResult => ({
  ok: false,
  errors: [issue(path, message)],
});
