/**
 * A schedule whose backwards a `split_backward` splits, written two ways: compact (the `schedule`
 * and the `split_backward`, as a user drops them) and expanded, as the designer wrote it before
 * `order` read a split region's B (apps/web/src/core/palette.ts, dropSplitBackward): the
 * schedule's directives in its place, and every slot that runs a split region's B runs BI there
 * and that BW in a slot right after. Both must compile to one plan.
 */
import {
  DESIGN_FORMAT,
  type Design,
  type Directive,
  type Filter,
  type ScheduleBuilderName,
} from '@stagecraft/ir';

export interface SplitSchedule {
  builder: ScheduleBuilderName;
  chunks: number;
  /** The `split_backward` filter: one PP region, or every one (`{ PP: '*' }`). */
  split: Filter;
  /** Whether the `split_backward` comes before the schedule in the program. */
  splitFirst?: boolean;
  /** PP regions per virtual stage: 2 makes every slot of the schedule name two regions. */
  regionsPerStage?: number;
}

const RANKS = 4;
const MICROBATCHES = 8;

export function compactDesign(s: SplitSchedule): Design {
  const schedule: Directive = { op: 'schedule', builder: s.builder, microbatches: MICROBATCHES };
  if (s.chunks !== 1) schedule.chunks = s.chunks;
  const split: Directive = { op: 'split_backward', filter: s.split };
  return {
    format: DESIGN_FORMAT,
    name: `${s.builder} with split_backward`,
    model: {
      kind: 'synthetic',
      stages: RANKS * s.chunks * (s.regionsPerStage ?? 1),
      // Unequal halves, so a BW in the wrong place shows in the step time.
      costs: { F: 2, BI: 1.5, BW: 1 },
      activationBytes: 1,
    },
    cluster: { kind: 'ideal', devices: RANKS },
    directives: s.splitFirst ? [split, schedule] : [schedule, split],
  };
}

/**
 * The design as the designer expanded it: `program` is the compact design's expanded program
 * (its `compile` result's), whose orders are rewritten slot by slot.
 */
export function expandedDesign(design: Design, program: readonly { directive: Directive }[]): Design {
  const regions = program.flatMap((e) => (e.directive.op === 'split_backward' ? [e.directive.filter] : []));
  const isSplitB = (f: Filter) => f.PASS === 'B' && regions.some((r) => regionHolds(r, f));
  const directives = program.map(({ directive: d }): Directive => {
    if (d.op !== 'order') return d;
    const filters: Filter[][] = [];
    for (const slot of d.filters) {
      const fused = slot.filter(isSplitB);
      filters.push(slot.map((f) => (isSplitB(f) ? { ...f, PASS: 'BI' } : { ...f })));
      if (fused.length > 0) filters.push(fused.map((f) => ({ ...f, PASS: 'BW' })));
    }
    return { op: 'order', filters };
  });
  return { ...design, directives };
}

/** Whether region filter `r` holds the op slot filter `f` names (the designer's filterMatches). */
function regionHolds(r: Filter, f: Filter): boolean {
  return Object.entries(r).every(([k, v]) => f[k] !== undefined && (v === '*' || v === f[k]));
}
