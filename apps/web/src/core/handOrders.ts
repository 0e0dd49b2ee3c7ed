/**
 * Which explicit `order` directives hold the user's own work. The editor makes orders explicit
 * when the user expands a schedule (the Expand button); an order that is still exactly what a
 * builder makes, with or without the program's split backwards written out as BI and BW slots,
 * loses nothing when a builder switch replaces it. Any other order was reordered or written by
 * hand, and the switch asks before it drops it. (A schedule's own edits are asked about by the
 * switch directly.)
 */
import {
  type Design,
  type Filter,
  type OrderDirective,
  SCHEDULE_BUILDERS,
  type ScheduleBuilderName,
} from '@stagecraft/ir';
import { getBuilder, lowerSchedule, scheduleMicrobatches } from '@stagecraft/passes';
import { ppStages } from './schedule.ts';
import { runningSlots, splitRegions } from './scheduleEdits.ts';

/** Indices (into the design's directives) of the orders a builder would not make as they are. */
export function handOrders(design: Design): number[] {
  const orders = design.directives.flatMap((d, i) => (d.op === 'order' ? [i] : []));
  if (orders.length === 0) return [];
  // A disabled order is never a builder's: the user switched it off.
  const keys = orders.map((i) => {
    const d = design.directives[i] as OrderDirective;
    return d.enabled === false ? undefined : orderKey(d.filters);
  });
  let best = new Set<number>();
  for (const candidate of builderOrders(design, orders.length)) {
    const matched = new Set(
      orders.filter((_, r) => keys[r] !== undefined && candidate[r]!.includes(keys[r])),
    );
    if (matched.size > best.size) best = matched;
    if (best.size === orders.length) break;
  }
  return orders.filter((i) => !best.has(i));
}

/**
 * The orders every builder makes for the design's split, stages and `ranks`: per rank, its key
 * as built and as run with the design's split backwards written out, the two forms an expanded
 * order of it takes.
 */
function* builderOrders(design: Design, ranks: number): Generator<string[][]> {
  const stages = ppStages(design.model);
  const split = (dim: string) =>
    design.directives.find((d) => d.op === 'split' && d.dim_name === dim && d.enabled !== false);
  const mb = split('MB');
  if (stages === undefined || ranks === 0 || mb?.op !== 'split') return;
  const bidirectional = split('DIR') !== undefined;
  const regions = splitRegions(design);
  for (const builder of SCHEDULE_BUILDERS) {
    const b = getBuilder(builder);
    if ((b.directions === 2) !== bidirectional) continue;
    const microbatches = scheduleMicrobatches(b, mb.num_microbatches);
    for (const chunks of chunkChoices(builder, stages, ranks)) {
      const input = { builder, ranks, microbatches, chunks, virtualStages: ranks * chunks };
      if (b.check(input).length > 0) continue;
      const lowered = lowerSchedule(b.build(input), {
        regionsPerStage: stages / (ranks * chunks),
        stages: Array.from({ length: stages }, (_, s) => s),
        groups: Array.from({ length: ranks }, (_, r) => [r]),
        microbatches,
        bidirectional,
        stream: undefined,
      });
      yield lowered.flatMap((d) => {
        if (d.op !== 'order') return [];
        return [[orderKey(d.filters), orderKey(runningSlots(d.filters, regions))]];
      });
    }
  }
}

/** Chunks per rank the builder runs that divide the model's stages among `ranks`. */
function chunkChoices(builder: ScheduleBuilderName, stages: number, ranks: number): number[] {
  const fixed = getBuilder(builder).fixedChunks;
  const all = fixed === undefined ? Array.from({ length: stages }, (_, c) => c + 1) : [fixed];
  return all.filter((c) => stages % (ranks * c) === 0);
}

/** An order's slots as one comparable string; tag order within a filter does not matter. */
function orderKey(slots: readonly (readonly Filter[])[]): string {
  return slots
    .map((slot) =>
      slot
        .map((f) =>
          Object.keys(f)
            .sort()
            .map((k) => `${k}=${f[k]}`)
            .join(' '),
        )
        .join(' & '),
    )
    .join('\n');
}
