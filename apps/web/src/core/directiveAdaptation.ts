/**
 * A builder switch changes what the program's other directives stand on: the model may be cut
 * into a different number of PP stages, microbatches and directions come and go, and the new
 * builder may split backwards itself. Each directive that names those is adapted to the new
 * schedule, or removed when nothing of it applies any more, with a line saying which and why.
 */
import type { Directive, Filter } from '@stagecraft/ir';
import { directiveSummary, directiveText } from './directiveSummary.ts';

/** The schedule a switch leads to, as the program's filters see it. */
export interface SwitchedSchedule {
  builder: string;
  /** PP stages of the model before the switch (undefined when not known) and after it. */
  stagesBefore: number | undefined;
  stages: number;
  /** Microbatch indices each direction runs (MB takes 0 .. this − 1). */
  microbatches: number;
  /** Whether ops carry a DIR tag (only DualPipe's two pipelines do). */
  bidirectional: boolean;
  /** Whether the schedule runs the backward of PP stage `pp` fused, as one B, anywhere. */
  runsFusedB(pp: number): boolean;
}

export interface Adapted {
  /** What stands in the directive's place: itself, adapted copies, or nothing. */
  directives: Directive[];
  /** What happened to it, for the notice; undefined when it applies as it is. */
  change?: string;
}

type Filtered = Extract<Directive, { filter: Filter }>;

/** The new stages covering old stage `pp` when `before` stages are recut into `after`. */
export function stagesCovering(pp: number, before: number, after: number): number[] {
  const lo = Math.floor((pp * after) / before);
  const hi = Math.ceil(((pp + 1) * after) / before) - 1;
  return Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
}

export function adaptDirective(d: Directive, to: SwitchedSchedule): Adapted {
  if (!('filter' in d)) return { directives: [d] };
  const f = d.filter;
  const notes: string[] = [];
  let filter: Filter = f;
  if (!to.bidirectional && f.DIR !== undefined) {
    const { DIR: _, ...rest } = filter;
    filter = rest;
    notes.push('only dualpipe runs two directions (DIR)');
  }
  if (typeof f.MB === 'number' && f.MB >= to.microbatches)
    return removed(d, `${to.builder} runs microbatches 0..${to.microbatches - 1}, not ${f.MB}`);
  let filters = [filter];
  let moved = false;
  const recut = to.stagesBefore !== undefined && to.stagesBefore !== to.stages;
  if (recut && typeof f.PP === 'number' && f.PP < to.stagesBefore!) {
    filters = stagesCovering(f.PP, to.stagesBefore!, to.stages).map((pp) => ({ ...filter, PP: pp }));
    // The switch's notice says how the model was recut; the arrow shows where the stage went.
    moved = true;
  }
  if (d.op === 'split_backward') {
    const kept = filters.filter((x) => splitsFusedB(x, to));
    if (kept.length === 0) return removed(d, `${to.builder} splits that backward already`);
    if (kept.length < filters.length) notes.push(`${to.builder} splits the rest already`);
    filters = kept;
  }
  const directives = filters.map((x) => ({ ...d, filter: x }) as Filtered);
  if (notes.length === 0 && !moved) return { directives };
  const now = directives.map(directiveSummary).join(', ');
  const why = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  return { directives, change: `${directiveText(d)} → ${now}${why}` };
}

function removed(d: Directive, why: string): Adapted {
  return { directives: [], change: `removed ${directiveText(d)}: ${why}` };
}

/** Whether a split_backward on `filter` still splits something the schedule runs fused. */
function splitsFusedB(filter: Filter, to: SwitchedSchedule): boolean {
  const pp = filter.PP;
  if (typeof pp === 'number') return to.runsFusedB(pp);
  return Array.from({ length: to.stages }, (_, s) => s).some((s) => to.runsFusedB(s));
}
