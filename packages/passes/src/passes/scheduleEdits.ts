/**
 * A schedule's hand edits (ir/scheduleEdit.ts), applied to the orders the builder made. Edits act
 * on a rank's order as the rank runs it: a rank that has edits gets its split backwards written
 * out as BI and BW slots first (runningOrder.ts), so an edit can name either half and moves them
 * as the timeline shows them. Ranks without edits keep the builder's order untouched (columns
 * that are never made into objects).
 *
 * An edit that cannot apply is reported at its path (`directives[0].edits[2].op`) and skipped,
 * so one compile names every such edit.
 */
import {
  CompileError,
  type Filter,
  formatPath,
  type Issue,
  type OrderDirective,
  type PathSegment,
  type ScheduleEdit,
  type ScheduleOp,
  scheduleOpText,
  slotsOf,
} from '@stagecraft/ir';
import { fusedBackwardIn, splitOrderBackward } from '../program/runningOrder.ts';

export interface EditScope {
  /** Path of the schedule directive. */
  path: PathSegment[];
  builder: string;
  /** Whether ops carry DIR (DualPipe's two pipelines). */
  bidirectional: boolean;
  /** Filters of the program's enabled split_backward directives. */
  splits: readonly Filter[];
}

type Slots = Filter[][];

/** The orders (one per rank, in rank order) with `edits` applied. */
export function applyScheduleEdits(
  orders: readonly OrderDirective[],
  edits: readonly ScheduleEdit[],
  scope: EditScope,
): OrderDirective[] {
  const ranks = new RankOrders(orders, scope);
  const issues: Issue[] = [];
  edits.forEach((edit, k) => {
    const problem = applyEdit(edit, [...scope.path, 'edits', k], ranks, scope);
    if (problem) issues.push(problem);
  });
  if (issues.length > 0) throw new CompileError(issues);
  return orders.map((d, rank) => {
    const slots = ranks.edited.get(rank);
    return slots ? { op: 'order', filters: slots } : d;
  });
}

/** The ranks' orders: the builder's, and the slots, as run, of those an edit touched. */
class RankOrders {
  readonly edited = new Map<number, Slots>();
  private readonly rankOf: Map<string, number>;
  private readonly isFusedB: (f: Filter) => boolean;

  constructor(
    private readonly orders: readonly OrderDirective[],
    scope: EditScope,
  ) {
    this.rankOf = regionRanks(orders);
    this.isFusedB = fusedBackwardIn(scope.splits);
  }

  rank(op: ScheduleOp): number | undefined {
    return this.rankOf.get(regionKey(op.PP, op.DIR));
  }

  slots(rank: number): Slots {
    let slots = this.edited.get(rank);
    if (!slots) {
      const filters = this.orders[rank]!.filters;
      slots = splitOrderBackward(filters, this.isFusedB) ?? filters.map((slot) => slot.slice());
      this.edited.set(rank, slots);
    }
    return slots;
  }
}

/** Applies one edit at `path` to its rank's slots, or says why it cannot. */
function applyEdit(
  edit: ScheduleEdit,
  path: PathSegment[],
  ranks: RankOrders,
  scope: EditScope,
): Issue | undefined {
  const fail = (message: string, ...at: PathSegment[]): Issue => ({
    path: formatPath([...path, ...at]),
    message,
  });
  const rankOf = (op: ScheduleOp, field: string): number | Issue => {
    if (scope.bidirectional && op.DIR === undefined)
      return fail(`${scope.builder} runs two directions: name the op's DIR (0 down, 1 up)`, field);
    if (!scope.bidirectional && op.DIR !== undefined)
      return fail(`only dualpipe runs two directions (DIR); ${scope.builder} runs one`, field, 'DIR');
    return ranks.rank(op) ?? fail(`the schedule runs no op of PP=${op.PP}`, field, 'PP');
  };
  const rank = rankOf(edit.op, 'op');
  if (typeof rank !== 'number') return rank;
  const slots = ranks.slots(rank);
  const from = locate(slots, edit.op, scope.splits);
  if (typeof from === 'string') return fail(from, 'op');
  const text = scheduleOpText(edit.op);
  if (edit.kind === 'overlap') {
    const next = slots[from + 1];
    if (!next) return fail(`${text} runs last on its rank: nothing follows to overlap`, 'op');
    const merged = [...slots[from]!, ...next];
    const passes = new Set(merged.map((f) => f.PASS));
    if (!passes.has('F') || !(passes.has('B') || passes.has('BI') || passes.has('BW')))
      return fail(
        `${text} and the next slot of its rank are not a forward and a backward: only an F&B pair overlaps`,
        'op',
      );
    slots.splice(from, 2, merged);
    return undefined;
  }
  const field = edit.before ? 'before' : 'after';
  const target = (edit.before ?? edit.after)!;
  const targetRank = rankOf(target, field);
  if (typeof targetRank !== 'number') return targetRank;
  if (targetRank !== rank)
    return fail(
      `${text} runs on rank ${rank} and ${scheduleOpText(target)} on rank ${targetRank}: an op moves within its own rank's order`,
      field,
    );
  const to = locate(slots, target, scope.splits);
  if (typeof to === 'string') return fail(to, field);
  if (to === from)
    return fail(
      `${text} and ${scheduleOpText(target)} run in one slot, overlapped: there is nothing to move`,
    );
  const moved = slots[from]!;
  const anchor = slots[to]!;
  slots.splice(from, 1);
  slots.splice(slots.indexOf(anchor) + (field === 'after' ? 1 : 0), 0, moved);
  return undefined;
}

/** The slot of `slots` running `op`, or why none does. */
function locate(slots: Slots, op: ScheduleOp, splits: readonly Filter[]): number | string {
  const names = (f: Filter, pass: string) =>
    f.PP === op.PP && f.MB === op.MB && f.DIR === op.DIR && f.PASS === pass;
  const find = (pass: string) => slots.findIndex((slot) => slot.some((f) => names(f, pass)));
  const j = find(op.PASS);
  if (j >= 0) return j;
  const text = scheduleOpText(op);
  if ((op.PASS === 'BI' || op.PASS === 'BW') && find('B') >= 0) {
    // Fused here, yet a split_backward naming block tags may split it where the filters cannot tell.
    const tagged = splits.some((r) =>
      Object.keys(r).some((key) => !['PP', 'DIR', 'MB', 'PASS'].includes(key)),
    );
    return tagged
      ? `${text}: its halves can be named only where a split_backward on a region (PP, DIR, MB) splits its B`
      : `${text}: the schedule runs that backward as one B; a split_backward on PP=${op.PP} splits it into BI and BW`;
  }
  if (op.PASS === 'B' && find('BI') >= 0)
    return `${text}: the schedule runs that backward as BI and BW; name one of them`;
  return `the schedule runs no op ${text}`;
}

function regionKey(pp: number, dir: number | undefined): string {
  return dir === undefined ? `${pp}` : `${pp}/${dir}`;
}

/** The rank that runs each PP region (per direction), from the ops of each rank's order. */
function regionRanks(orders: readonly OrderDirective[]): Map<string, number> {
  const out = new Map<string, number>();
  orders.forEach((d, rank) => {
    const columns = slotsOf(d);
    if (columns) {
      for (let k = 0; k < columns.pp.length; k++) {
        const dir = columns.dir[k]!;
        out.set(regionKey(columns.pp[k]!, dir >= 0 ? dir : undefined), rank);
      }
      return;
    }
    for (const slot of d.filters)
      for (const f of slot)
        if (typeof f.PP === 'number')
          out.set(regionKey(f.PP, typeof f.DIR === 'number' ? f.DIR : undefined), rank);
  });
  return out;
}
