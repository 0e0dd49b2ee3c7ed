/**
 * The palette's schedule items: the program runs another builder on the same ranks. The switch
 * keeps what it can (the model's stage count when the builder's ranks × chunks divide it, the
 * microbatches when the builder accepts them, the user's name) and adapts or removes the directives
 * that no longer apply, saying which in its notice. Explicit orders and the schedule's hand edits
 * give way to the builder's order; when there is hand work among them the switch asks first
 * (handOrders.ts).
 */
import {
  type Design,
  type Directive,
  type ScheduleBuilderName,
  type ScheduleDirective,
  scheduleEditText,
  scheduleRanks,
} from '@stagecraft/ir';
import { type BuilderInput, getBuilder, microbatchesPerDirection } from '@stagecraft/passes';
import { type Outcome, refused } from './action.ts';
import { type Adapted, adaptDirective } from './directiveAdaptation.ts';
import { handOrders } from './handOrders.ts';
import { withDirectives } from './program.ts';
import { ppStages, recutModel, scheduleIndex } from './schedule.ts';
import { isScheduleName, scheduleName } from './scheduleName.ts';

/** The directives an expanded schedule stands for: without the macro, they give way to the builder's. */
const SCHEDULE_PARTS = new Set(['split', 'place', 'order']);

export function switchBuilder(design: Design, builder: ScheduleBuilderName, confirmed = false): Outcome {
  const b = getBuilder(builder);
  const at = scheduleIndex(design);
  const current = at >= 0 ? (design.directives[at] as ScheduleDirective) : undefined;
  const ranks = scheduleRanks(current ?? {}, design.cluster);
  const chunks =
    b.fixedChunks ?? (current?.chunks && builder === current.builder ? current.chunks : b.defaultChunks);
  const changes: string[] = [];

  const fit = fitMicrobatches({
    builder,
    ranks,
    chunks,
    microbatches: microbatchesOf(design, current),
    virtualStages: ranks * chunks,
  });
  if (!fit.ok) return refused(fit.error);
  const input = fit.input;
  if (fit.change) changes.push(fit.change);

  const virtual = ranks * chunks;
  const stagesBefore = ppStages(design.model);
  let model = design.model;
  let stages = stagesBefore ?? virtual;
  if (stagesBefore === undefined || stagesBefore % virtual !== 0) {
    // The nearest count the builder can run, so a finely cut model stays about as fine.
    stages = Math.max(1, Math.round((stagesBefore ?? virtual) / virtual)) * virtual;
    const recut = recutModel(model, stages);
    if (!recut)
      return refused(
        `${builder} runs ${virtual} stages (${ranks} ranks × ${chunks} chunks); the model's PP stages do not divide into them`,
      );
    model = recut;
    changes.push(
      `the model is cut into ${stages} stages${stagesBefore === undefined ? '' : ` instead of ${stagesBefore}`} (${builder} runs ${ranks} ranks × ${chunks} chunks)`,
    );
  }

  const dropped = design.directives.flatMap((d, i) =>
    d.op === 'order' || (!current && SCHEDULE_PARTS.has(d.op)) ? [i] : [],
  );
  const drop = new Set(dropped);
  const hand = handOrders(design).filter((i) => drop.has(i));
  // The schedule's own edits name ops of its builder's order: the new builder's order has its own.
  const edits = current?.edits ?? [];
  if ((hand.length > 0 || edits.length > 0) && !confirmed)
    return {
      ok: false,
      error: `switching to ${builder} would drop orders edited by hand`,
      confirm: {
        title: `Switch to ${builder}?`,
        message: `${builder} orders every device itself. These hold your own reordering and would be dropped (undo brings them back):`,
        items: [
          ...edits.map((e, k) => `directives[${at}].edits[${k}]: ${scheduleEditText(e)}`),
          ...hand.map((i) => `directives[${i}]: order of ${orderSlots(design.directives[i]!)} slots`),
        ],
        accept: `Drop them and switch to ${builder}`,
      },
    };

  const next: ScheduleDirective = { op: 'schedule', builder, microbatches: input.microbatches };
  if (current?.ranks !== undefined) next.ranks = current.ranks;
  if (current?.groups) next.groups = current.groups;
  if (current?.stream) next.stream = current.stream;
  if (chunks !== b.defaultChunks) next.chunks = chunks;

  const fused = fusedStages(input, stages);
  const to = {
    builder,
    stagesBefore,
    stages,
    microbatches: microbatchesPerDirection(b, input.microbatches),
    bidirectional: b.directions === 2,
    runsFusedB: (pp: number) => fused().has(pp),
  };
  const handNames = hand.map((i) => `directives[${i}]`).join(', ');
  if (!current && dropped.length > 0)
    changes.push(
      hand.length > 0
        ? `dropped the hand-edited ${handNames} with the explicit split, place and order`
        : 'the explicit split, place and order give way to the schedule',
    );
  else if (hand.length > 0) changes.push(`dropped the hand-edited ${handNames}`);
  if (edits.length > 0)
    changes.push(`dropped the schedule's ${edits.length} hand edit${edits.length === 1 ? '' : 's'}`);
  const directives: Directive[] = [];
  // In the macro's place, or where the first of the directives it replaces stood.
  let scheduleAt = -1;
  design.directives.forEach((d, i) => {
    if (i === at || (!current && i === dropped[0])) {
      scheduleAt = directives.length;
      directives.push(next);
      return;
    }
    if (drop.has(i)) return;
    const a: Adapted = adaptDirective(d, to);
    directives.push(...a.directives);
    if (a.change) changes.push(a.change);
  });
  if (scheduleAt < 0) {
    scheduleAt = 0;
    directives.unshift(next);
  }
  const renamed = isScheduleName(design.name)
    ? scheduleName({ builder, ranks, chunks, microbatches: input.microbatches })
    : design.name;
  const out: Outcome = {
    ok: true,
    design: { ...withDirectives(design, directives), model, name: renamed },
    select: scheduleAt,
  };
  if (changes.length > 0) out.notice = `Switched to ${builder}: ${changes.join('; ')}.`;
  return out;
}

/** The microbatches the program runs now: its schedule's, its MB split's (both directions), or 8. */
function microbatchesOf(design: Design, current: ScheduleDirective | undefined): number {
  if (current) return current.microbatches;
  const split = (dim: string) =>
    design.directives.find((d) => d.op === 'split' && d.dim_name === dim && d.enabled !== false);
  const mb = split('MB');
  const dir = split('DIR');
  if (mb?.op !== 'split') return 8;
  return mb.num_microbatches * (dir?.op === 'split' ? dir.num_microbatches : 1);
}

/**
 * The input the builder accepts: the same microbatches if it can, else the fewest more it runs
 * (DualPipeV needs 2 per rank), named in the notice. Any other problem refuses the switch.
 */
function fitMicrobatches(
  input: BuilderInput,
): { ok: true; input: BuilderInput; change?: string } | { ok: false; error: string } {
  const b = getBuilder(input.builder);
  const problems = b.check(input);
  if (problems.length === 0) return { ok: true, input };
  const other = problems.find((p) => p.field !== 'microbatches');
  if (other) return { ok: false, error: other.message };
  const limit = input.microbatches + 2 * input.virtualStages + 2;
  for (let m = input.microbatches + 1; m <= limit; m++) {
    const fitted = { ...input, microbatches: m };
    if (b.check(fitted).length === 0)
      return {
        ok: true,
        input: fitted,
        change: `microbatches ${input.microbatches} → ${m}, the fewest from ${input.microbatches} up that ${input.builder} runs (${problems[0]!.message})`,
      };
  }
  return { ok: false, error: problems[0]!.message };
}

/** The PP stages whose backward the schedule runs fused (as B) somewhere; built once, on demand. */
function fusedStages(input: BuilderInput, stages: number): () => Set<number> {
  let found: Set<number> | undefined;
  return () => {
    if (found) return found;
    found = new Set();
    const perStage = stages / input.virtualStages;
    for (const program of getBuilder(input.builder).build(input).programs)
      for (const slot of program)
        for (const a of slot)
          if (a.pass === 'B') for (let r = 0; r < perStage; r++) found.add(a.stage * perStage + r);
    return found;
  };
}

function orderSlots(d: Directive): number {
  return d.op === 'order' ? d.filters.length : 0;
}
