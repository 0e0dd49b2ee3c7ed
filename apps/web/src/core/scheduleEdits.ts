/**
 * A schedule's hand edits in the editor. Timeline moves and overlap slots on a schedule's order
 * are written as edits of the schedule (ir/scheduleEdit.ts) rather than by expanding it, so the
 * program keeps saying what the user meant; the compiler applies them as it expands the schedule.
 * Orders here are read as their ranks run them (split backwards as BI and BW slots), the form
 * the edits act on.
 */
import {
  DESIGN_FORMAT,
  type Design,
  type Directive,
  type Filter,
  PASS_NAMES,
  type PassName,
  type ScheduleEdit,
  type ScheduleOp,
} from '@stagecraft/ir';
import { fusedBackwardIn, splitOrderBackward } from '@stagecraft/passes';
import { type Outcome, refused } from './action.ts';
import { withDirectives } from './program.ts';

/** The op an edit names for an op with these tags, or undefined for one no schedule slot names. */
export function scheduleOpOf(tags: Readonly<Record<string, number | string>>): ScheduleOp | undefined {
  const { PP, MB, PASS, DIR } = tags;
  if (typeof PP !== 'number' || typeof MB !== 'number') return undefined;
  if (!(PASS_NAMES as readonly unknown[]).includes(PASS)) return undefined;
  const op: ScheduleOp = { PP, MB, PASS: PASS as PassName };
  if (typeof DIR === 'number') op.DIR = DIR;
  return op;
}

/**
 * The design with `edit` appended to the schedule at `index`, in the format that holds edits;
 * undefined when that is no schedule (a program compiled from another version of the design).
 */
export function withScheduleEdit(design: Design, index: number, edit: ScheduleEdit): Design | undefined {
  const d = design.directives[index];
  if (d?.op !== 'schedule') return undefined;
  const directives = design.directives.slice();
  directives[index] = { ...d, edits: [...(d.edits ?? []), edit] };
  return { ...withDirectives(design, directives), format: DESIGN_FORMAT };
}

/** Removes edit `edit` of the schedule at `index`; the schedule loses `edits` with its last one. */
export function removeScheduleEdit(design: Design, index: number, edit: number): Outcome {
  const d = design.directives[index];
  if (d?.op !== 'schedule' || !d.edits?.[edit])
    return refused(`directives[${index}].edits[${edit}] does not exist`);
  const { edits, ...rest } = d;
  const kept = edits.filter((_, k) => k !== edit);
  const directives = design.directives.slice();
  directives[index] = kept.length > 0 ? { ...rest, edits: kept } : rest;
  return { ok: true, design: withDirectives(design, directives), select: index };
}

/** Filters of the design's enabled split_backward directives. */
export function splitRegions(design: Design): Filter[] {
  return design.directives.flatMap((d: Directive) =>
    d.op === 'split_backward' && d.enabled !== false ? [d.filter] : [],
  );
}

/** An order's slots as its rank runs them: a split B as its BI slot and a BW slot right after. */
export function runningSlots(
  slots: readonly (readonly Filter[])[],
  regions: readonly Filter[],
): readonly (readonly Filter[])[] {
  return regions.length > 0 ? (splitOrderBackward(slots, fusedBackwardIn(regions)) ?? slots) : slots;
}
