/**
 * The program list shows a schedule as one item with what the user changed of it folded beneath:
 * the split_backward directives right after it (where a drop puts them) and its hand edits. The
 * folded split_backwards stay directives of their own, listed, selected and edited as any other.
 */
import { type Design, type ScheduleEdit, scheduleEditText } from '@stagecraft/ir';
import { filterText } from './directiveSummary.ts';
import { scheduleIndex } from './schedule.ts';

export interface ScheduleFold {
  /** Indices of the split_backward directives that follow the schedule. */
  splits: number[];
  edits: readonly ScheduleEdit[];
}

/** What the schedule at `index` folds beneath it; undefined when that is no schedule. */
export function scheduleFold(design: Design, index: number): ScheduleFold | undefined {
  const d = design.directives[index];
  if (d?.op !== 'schedule') return undefined;
  const splits: number[] = [];
  for (let i = index + 1; design.directives[i]?.op === 'split_backward'; i++) splits.push(i);
  return { splits, edits: d.edits ?? [] };
}

/** Every line of a fold, in the order the list shows them: splits, then edits in their order. */
function foldLines(design: Design, fold: ScheduleFold): string[] {
  return [
    ...fold.splits.map((i) => {
      const d = design.directives[i]!;
      return `split backward ${'filter' in d ? filterText(d.filter) : ''}`;
    }),
    ...fold.edits.map(scheduleEditText),
  ];
}

/** One line for a folded schedule: "3 edits: split backward PP=1, move 2F3 before 2B1, …". */
export function foldSummary(design: Design, fold: ScheduleFold): string {
  const lines = foldLines(design, fold);
  return `${lines.length} edit${lines.length === 1 ? '' : 's'}: ${lines.join(', ')}`;
}

/** Directive indices shown inside a schedule's fold rather than as items of their own. */
export function foldedIndices(design: Design): Set<number> {
  const out = new Set<number>();
  design.directives.forEach((_, i) => {
    for (const j of scheduleFold(design, i)?.splits ?? []) out.add(j);
  });
  return out;
}

/** Where a split_backward drop goes: after the schedule and the splits folded under it, else last. */
export function splitBackwardSlot(design: Design): number {
  const at = scheduleIndex(design);
  if (at < 0) return design.directives.length;
  return at + 1 + scheduleFold(design, at)!.splits.length;
}
