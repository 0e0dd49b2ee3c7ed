/**
 * `schedule` is a macro: it expands into the `split` + `place` + `order` a named schedule
 * amounts to, in place, so the user can see and edit exactly what runs. The schedule's hand
 * edits (moves, overlap slots) reorder those orders as it expands (scheduleEdits.ts). A virtual stage of the
 * builder covers `k` consecutive PP regions when the model has k·ranks·chunks of them.
 */
import {
  CompileError,
  type Directive,
  deviceCount,
  formatPath,
  type Issue,
  type MeshSpec,
  meshDevices,
  type OrderDirective,
  orderOfSlots,
  PASS_NAMES,
  type PathSegment,
  type ScheduleDirective,
  scheduleOpEstimate,
  scheduleRanks,
} from '@stagecraft/ir';
import type { BuilderInput, BuiltSchedule, ScheduleBuilder, Slot } from '../builders/builder.ts';
import { getBuilder } from '../builders/index.ts';
import type { ExpandedDirective } from '../driver/compileTypes.ts';
import type { PassContext } from '../driver/pass.ts';
import { stageValues } from '../model/lowerModel.ts';
import { isEnabled } from '../program/program.ts';
import { applyScheduleEdits } from './scheduleEdits.ts';

export function expandProgram(ctx: PassContext, blocksPP: number[], blockCount: number): ExpandedDirective[] {
  const out: ExpandedDirective[] = [];
  const errors: Issue[] = [];
  ctx.design.directives.forEach((d, i) => {
    if (!isEnabled(d)) return;
    if (d.op !== 'schedule') {
      out.push({ directive: d, source: i, path: ['directives', i] });
      return;
    }
    try {
      expandSchedule(d, ['directives', i], ctx, blocksPP, blockCount).forEach((e, j) => {
        out.push({ directive: e, source: i, path: ['directives', i, 'expansion', j] });
      });
    } catch (e) {
      if (e instanceof CompileError) errors.push(...e.issues);
      else throw e;
    }
  });
  if (errors.length > 0) throw new CompileError(errors);
  return out;
}

function expandSchedule(
  d: ScheduleDirective,
  path: PathSegment[],
  ctx: PassContext,
  stages: number[],
  blockCount: number,
): Directive[] {
  const at = (field: string) => formatPath([...path, field]);
  const builder = getBuilder(d.builder);
  const devices = deviceCount(ctx.design.cluster);
  if (stages.length === 0) {
    throw new CompileError({
      path: formatPath(path),
      message: "a schedule needs the model's blocks tagged PP (no block has tag PP)",
    });
  }
  const ranks = scheduleRanks(d, ctx.design.cluster);
  const chunks = d.chunks ?? builder.defaultChunks;
  if (builder.fixedChunks !== undefined && chunks !== builder.fixedChunks) {
    throw new CompileError({
      path: at('chunks'),
      message: `${d.builder} runs ${builder.fixedChunks} chunks per rank, got ${chunks}`,
    });
  }
  const groups = d.groups ?? Array.from({ length: ranks }, (_, r) => [r]);
  if (groups.length !== ranks) {
    throw new CompileError({
      path: at('groups'),
      message: `${groups.length} device groups for ${ranks} ranks`,
    });
  }
  groups.forEach((g, r) => {
    // A rank on a mesh: its devices are checked where its place is (place.ts), with the mesh's path.
    if (!Array.isArray(g)) {
      const m = meshDevices(g);
      if (!m.ok)
        throw new CompileError({ path: formatPath([...path, 'groups', r, ...m.path]), message: m.message });
      const out = m.devices.find((dev) => dev >= devices);
      if (out !== undefined)
        throw new CompileError({
          path: formatPath([...path, 'groups', r]),
          message: `device ${out} is outside the cluster (devices 0..${devices - 1})`,
        });
      return;
    }
    g.forEach((dev, j) => {
      if (dev >= devices) {
        throw new CompileError({
          path: formatPath([...path, ...(d.groups ? ['groups', r, j] : ['ranks'])]),
          message: `device ${dev} is outside the cluster (devices 0..${devices - 1})`,
        });
      }
    });
  });
  const virtualStages = ranks * chunks;
  if (stages.length % virtualStages !== 0) {
    throw new CompileError({
      path: formatPath(path),
      message: `the model's ${stages.length} PP stages do not divide into ranks × chunks = ${ranks} × ${chunks} = ${virtualStages}`,
    });
  }
  const input = { builder: d.builder, ranks, microbatches: d.microbatches, chunks, virtualStages };
  const problems = builder.check(input);
  if (problems.length > 0) {
    throw new CompileError(
      problems.map((p: { field: string; message: string }) => ({ path: at(p.field), message: p.message })),
    );
  }
  // Refusing here, before anything is built, keeps an oversized design from costing time and memory.
  const estimate = scheduleOpEstimate(d.microbatches, blockCount, ranks);
  if (estimate > ctx.options.maxOps) {
    throw new CompileError({
      path: at('microbatches'),
      message: `the design would have about ${estimate.toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
    });
  }
  // Rank by rank where the builder can: one rank's actions in memory at a time.
  const schedule: Schedule = builder.byRank
    ? new RankedSchedule(builder.byRank, input, ranks)
    : new BuiltPrograms(builder.build(input));
  const bidirectional = builder.directions === 2;
  const lowered = lowerSchedule(schedule, {
    regionsPerStage: stages.length / virtualStages,
    stages,
    groups,
    microbatches: d.microbatches,
    bidirectional,
    stream: d.stream,
  });
  if (!d.edits || d.edits.length === 0) return lowered;
  // The orders come last, one per rank: the user's edits reorder them (scheduleEdits.ts).
  const first = lowered.findIndex((x) => x.op === 'order');
  const splits = ctx.design.directives.flatMap((x) =>
    x.op === 'split_backward' && isEnabled(x) ? [x.filter] : [],
  );
  const orders = applyScheduleEdits(lowered.slice(first) as OrderDirective[], d.edits, {
    path,
    builder: d.builder,
    bidirectional,
    splits,
  });
  return [...lowered.slice(0, first), ...orders];
}

interface Lowering {
  regionsPerStage: number;
  stages: number[];
  groups: (number[] | MeshSpec)[];
  microbatches: number;
  bidirectional: boolean;
  stream: string | undefined;
}

/** A built schedule as lowering reads it: the placement and each rank's program, on demand. */
interface Schedule {
  readonly placement: BuiltSchedule['placement'];
  readonly ranks: number;
  program(rank: number): readonly Slot[];
}

// Classes rather than objects with closures: a closure made per compile is a new call target
// each time, and lowering's optimised code, specialised on the last one, was thrown away on
// every compile.

/** A builder that makes one rank's program at a time. */
class RankedSchedule implements Schedule {
  readonly placement: BuiltSchedule['placement'];
  constructor(
    private readonly byRank: NonNullable<ScheduleBuilder['byRank']>,
    private readonly input: BuilderInput,
    readonly ranks: number,
  ) {
    this.placement = byRank.placement(input);
  }

  program(rank: number): readonly Slot[] {
    return this.byRank.program(this.input, rank);
  }
}

/** Every rank's program, built at once. */
class BuiltPrograms implements Schedule {
  readonly placement: BuiltSchedule['placement'];
  readonly ranks: number;
  constructor(private readonly built: BuiltSchedule) {
    this.placement = built.placement;
    this.ranks = built.programs.length;
  }

  program(rank: number): readonly Slot[] {
    return this.built.programs[rank]!;
  }
}

/** The directives a built schedule amounts to: split, a place per PP region, an order per rank. */
export function lowerSchedule(built: BuiltSchedule | Schedule, l: Lowering): Directive[] {
  const schedule = 'programs' in built ? new BuiltPrograms(built) : built;
  const out: Directive[] = [];
  const stream = l.stream ? { stream: l.stream } : {};
  const regions = (vs: number) => l.stages.slice(vs * l.regionsPerStage, (vs + 1) * l.regionsPerStage);
  if (l.bidirectional) {
    out.push({ op: 'split', filter: {}, dim_name: 'DIR', num_microbatches: 2 });
    out.push({ op: 'split', filter: {}, dim_name: 'MB', num_microbatches: l.microbatches / 2 });
  } else {
    out.push({ op: 'split', filter: {}, dim_name: 'MB', num_microbatches: l.microbatches });
  }
  const placement = schedule.placement;
  if (Array.isArray(placement)) {
    (placement as readonly number[]).forEach((rank, vs) => {
      for (const pp of regions(vs))
        out.push({ op: 'place', filter: { PP: pp }, ...on(l.groups[rank]!), ...stream });
    });
  } else {
    const p = placement as { down: readonly number[]; up: readonly number[] };
    p.down.forEach((rank, vs) => {
      for (const pp of regions(vs))
        out.push({ op: 'place', filter: { PP: pp, DIR: 0 }, ...on(l.groups[rank]!), ...stream });
    });
    p.up.forEach((rank, vs) => {
      for (const pp of regions(vs))
        out.push({ op: 'place', filter: { PP: pp, DIR: 1 }, ...on(l.groups[rank]!), ...stream });
    });
  }
  // Tens of thousands of actions: each rank's order is columns (ir/orderSlots.ts), whose filter
  // objects are made only if something reads them.
  const rps = l.regionsPerStage;
  for (let rank = 0; rank < schedule.ranks; rank++) {
    const program = schedule.program(rank);
    let count = 0;
    for (let j = 0; j < program.length; j++) count += program[j]!.length * rps;
    const at = new Int32Array(program.length + 1);
    const pp = new Int32Array(count);
    const dir = new Int32Array(count);
    const mb = new Int32Array(count);
    const pass = new Uint8Array(count);
    let k = 0;
    for (let j = 0; j < program.length; j++) {
      const slot = program[j]!;
      at[j] = k;
      for (let q = 0; q < slot.length; q++) {
        const a = slot[q]!;
        const forward = a.pass === 'F';
        for (let r = 0; r < rps; r++, k++) {
          // Forwards visit a stage's regions first to last, backwards last to first.
          pp[k] = l.stages[forward ? a.stage * rps + r : a.stage * rps + rps - 1 - r]!;
          dir[k] = l.bidirectional ? (a.dir ?? 0) : -1;
          mb[k] = a.mb;
          pass[k] = PASS_NAMES.indexOf(a.pass);
        }
      }
    }
    at[program.length] = k;
    out.push(orderOfSlots({ at, pp, dir, mb, pass }));
  }
  return out;
}

export { stageValues };

/** A place's target: a rank's devices, or its mesh. */
function on(g: number[] | MeshSpec): { devices: number[] } | { mesh: MeshSpec } {
  return Array.isArray(g) ? { devices: g } : { mesh: g };
}
