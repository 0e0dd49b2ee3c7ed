/**
 * `order` fixes the execution order of ops on one device group: each slot runs after the one
 * before it. A slot's filters that select independent ops form an overlap unit (DualPipe's F&B
 * pair); filters whose ops feed each other (the regions of one stage) run in data order. An order
 * must stay on one group, order each op once, and agree with the data dependencies.
 *
 * A slot naming the fused B of a region `split_backward` split runs its halves: BI in the B's
 * place and BW in a slot of its own right after (splitHalves.ts), never BI and BW in one slot,
 * which would make them one overlap unit and lose the BI → BW dependency.
 */
import {
  CompileError,
  EDGE_TEMPORAL,
  type Filter,
  formatPath,
  grow,
  Names,
  nodeIdOf,
  OP_ORDER_SINK,
  type OrderDirective,
  type OrderSlots,
  type OverlapSlot,
  PASS_NAMES,
  type PathSegment,
  slotsOf,
  tableOf,
  withEntries,
} from '@stagecraft/ir';
import { type Adjacency, outEdges } from '../dag/adjacency.ts';
import { EdgeAppend } from '../dag/edgeAppend.ts';
import { topoOrderOf } from '../dag/topo.ts';
import { type Pass, rewritten } from '../driver/pass.ts';
import { interleavedSlot } from '../program/interleaveSlot.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';
import { splitHalves } from '../program/splitHalves.ts';

/** Above this many prev×next pairs, consecutive slots are joined through an ORDER_SINK node. */
const DIRECT_EDGE_LIMIT = 4;

export const orderPass: Pass = {
  name: 'order',
  reads: ['order', 'split_backward'],
  run(dag, ctx) {
    const orders = directivesOf(ctx.program, 'order');
    if (orders.length === 0) return dag;
    const index = NodeIndex.of(dag);
    // Out-edges only matter to slots of several filters (overlap detection): built on first use.
    let out: Adjacency | undefined;
    const t = tableOf(dag);
    const N = t.length;
    const nodeGroup = t.group;
    // ORDER_SINKs added, as rows appended after the others: group, directive, id.
    const sinkGroup: number[] = [];
    const sinkDirective: number[] = [];
    const sinkId: string[] = [];
    const overlaps: OverlapSlot[] = [...dag.overlaps];
    // Where each node was ordered: a slot number, the rows of all orders counted in sequence
    // (rowBase[oi] is the number of order oi's first row), so no per-slot record is kept; the
    // slot's path is recovered only for a message.
    const slotOf = ctx.scratch.int32(N, -1);
    const rowBase = new Int32Array(orders.length + 1);
    // A schedule's orders are slot columns (ir/orderSlots.ts): read as such, not as filter objects.
    const columns = orders.map(({ d }) => slotsOf(d));
    for (let oi = 0; oi < orders.length; oi++)
      rowBase[oi + 1] = rowBase[oi]! + slotCount(orders[oi]!.d, columns[oi]);
    // Mostly one edge joins a slot to the one before: about one per row.
    const edges = new EdgeAppend(rowBase[orders.length]);
    // A slot number is twice its row's number, plus one for the slot of the BW halves of the
    // split backwards the row names as B (splitHalves.ts), which runs right after the row.
    const slotPath = (slot: number): PathSegment[] => {
      const row = slot >> 1;
      let oi = 0;
      while (rowBase[oi + 1]! <= row) oi++;
      return [...orders[oi]!.path, 'filters', row - rowBase[oi]!];
    };
    const halves = splitHalves(dag, ctx.program);
    // Filter (within its slot) of each node of the current slot, for overlap detection.
    const filterOf = ctx.scratch.int32(N);
    // The ops of the slot before, of this one, and of its BW halves: buffers passed round.
    let prev = ctx.scratch.int32(N);
    let members = ctx.scratch.int32(N);
    let after = ctx.scratch.int32(N);
    for (let oi = 0; oi < orders.length; oi++) {
      const { d, index: di, path } = orders[oi]!;
      let group = -1;
      let groupPath = '';
      let prevCount = 0;
      // Path of the filter being matched, built only for a message (one closure per order).
      let fj = 0;
      let fq = 0;
      const fpath = () => [...path, 'filters', fj, fq];
      /** Orders the `n` nodes `index` found in slot `slot` as filter `q` of it, into `into`. */
      const take = (n: number, slot: number, q: number, into: Int32Array, count: number): number => {
        const found = index.found();
        for (let k = 0; k < n; k++) {
          const x = found[k]!;
          const g = nodeGroup[x]!;
          if (group < 0) {
            group = g;
            groupPath = formatPath(fpath());
          } else if (g !== group) {
            throw new CompileError({
              path: formatPath(fpath()),
              message: `matches ${nodeIdOf(dag, x)} on devices [${dag.groups[g]!.join(', ')}], but this order runs on devices [${dag.groups[group]!.join(', ')}] (from ${groupPath}); an order stays on one device group`,
            });
          }
          if (slotOf[x]! >= 0) {
            throw new CompileError({
              path: formatPath(fpath()),
              message: `${nodeIdOf(dag, x)} is already ordered by ${formatPath(slotPath(slotOf[x]!))}`,
            });
          }
          slotOf[x] = slot;
          filterOf[x] = q;
          into[count++] = x;
        }
        return count;
      };
      /**
       * Runs the `count` ops of `ops` (`width` filters), slot `slot` of row `row`, after the slot
       * before.
       */
      const close = (ops: Int32Array, count: number, width: number, slot: number, row: number) => {
        if (width > 1) {
          // Slots of several filters (DualPipe's F&B, regions of a stage) decide how they run.
          const list = Array.from(ops.subarray(0, count));
          const adjacency = (out ??= outEdges(N, dag.edges, ctx.scratch));
          const zipper = interleavedSlot(dag, list, adjacency);
          if (zipper)
            for (let k = 1; k < zipper.length; k++) edges.add(zipper[k - 1]!, zipper[k]!, EDGE_TEMPORAL, 0);
          else if (independentParts(list, width, slot, slotOf, filterOf, adjacency, dag.edges.to) > 1)
            overlaps.push({ nodes: list, directive: di });
        }
        if (prevCount > 0) {
          if (prevCount * count <= DIRECT_EDGE_LIMIT) {
            for (let a = 0; a < prevCount; a++)
              for (let b = 0; b < count; b++) edges.add(prev[a]!, ops[b]!, EDGE_TEMPORAL, 0);
          } else {
            const sink = N + sinkId.length;
            sinkGroup.push(group);
            sinkDirective.push(di);
            // The BW halves' slot is not a row of the order: its sink is named after the row's.
            const at: PathSegment[] = [...path, 'filters', row, ...(slot & 1 ? ['BW'] : [])];
            sinkId.push(`ORDER_SINK.${formatPath(at)}`);
            for (let a = 0; a < prevCount; a++) edges.add(prev[a]!, sink, EDGE_TEMPORAL, 0);
            for (let b = 0; b < count; b++) edges.add(sink, ops[b]!, EDGE_TEMPORAL, 0);
          }
        }
        prevCount = count;
      };
      const slots = columns[oi];
      const rows = slotCount(d, slots);
      for (let j = 0; j < rows; j++) {
        const slot = slots ? undefined : d.filters[j]!;
        const width = slots ? slots.at[j + 1]! - slots.at[j]! : slot!.length;
        if (width === 0) continue; // an idle step: nothing to order
        const here = 2 * (rowBase[oi]! + j);
        let count = 0;
        // The BW halves of the split backwards this row names as B, and how many filters name them.
        let bwCount = 0;
        let bwWidth = 0;
        for (let q = 0; q < width; q++) {
          fj = j;
          fq = q;
          const k = slots ? slots.at[j]! + q : -1;
          const n = slots ? index.findSlot(slots, k, fpath) : index.find(slot![q]!, fpath);
          const before = count;
          count = take(n, here, q, members, count);
          if (halves && (slots ? slots.pass[k] === PASS_B : slot![q]!.PASS === 'B')) {
            // A B of a region split_backward split: its BI runs here, its BW right after.
            const bi = keepMarked(index, findAs(index, slots, k, slot?.[q], fpath, PASS_BI), halves);
            count = take(bi, here, q, members, count);
            const bw = keepMarked(index, findAs(index, slots, k, slot?.[q], fpath, PASS_BW), halves);
            bwCount = take(bw, here + 1, bwWidth, after, bwCount);
            if (bw > 0) bwWidth++;
          }
          if (count === before)
            throw new CompileError({ path: formatPath(fpath()), message: 'matches no op' });
        }
        close(members, count, width, here, j);
        const done = prev;
        prev = members;
        members = done;
        if (bwCount > 0) {
          close(after, bwCount, bwWidth, here + 1, j);
          const spare = prev;
          prev = after;
          after = spare;
        }
      }
    }
    let table = t;
    if (sinkId.length > 0) {
      const grown = grow(t, sinkId.length);
      const names = new Names(t.names);
      const compute = names.index('compute');
      const pass = names.index('order');
      for (let k = 0; k < sinkId.length; k++) {
        const r = N + k;
        grown.op[r] = OP_ORDER_SINK;
        grown.group[r] = sinkGroup[k]!;
        grown.stream[r] = compute;
        grown.provPass[r] = pass;
        grown.provDirective[r] = sinkDirective[k]!;
      }
      grown.names = names.names;
      grown.ids = withEntries(
        t.ids,
        sinkId.map((id, k) => [N + k, id] as const),
      );
      table = grown;
    }
    const next = rewritten(dag, ctx, { edges: edges.onto(dag.edges), overlaps }, table);
    const topo = topoOrderOf(next, ctx.scratch);
    if (!topo.ok) {
      const names = topo.cycle.map((n) => nodeIdOf(next, n));
      const placed = topo.cycle.map((n) => (n < slotOf.length ? slotOf[n]! : -1)).find((s) => s >= 0);
      throw new CompileError({
        path: placed !== undefined ? formatPath(slotPath(placed)) : 'directives',
        message: `the order forms a cycle with the data dependencies: ${[...names, names[0]].join(' → ')}`,
      });
    }
    return next;
  },
};

const PASS_B = PASS_NAMES.indexOf('B');
const PASS_BI = PASS_NAMES.indexOf('BI');
const PASS_BW = PASS_NAMES.indexOf('BW');

/** `find` of filter k of `slots`, or of `filter`, with PASS `pass` (an index into PASS_NAMES). */
function findAs(
  index: NodeIndex,
  slots: OrderSlots | undefined,
  k: number,
  filter: Filter | undefined,
  path: () => PathSegment[],
  pass: number,
): number {
  return slots
    ? index.findSlot(slots, k, path, pass)
    : index.find({ ...filter!, PASS: PASS_NAMES[pass]! }, path);
}

/**
 * Keeps, of the `n` nodes `index` found, those `marked` (moved to the front of its list): the
 * halves of backwards `split_backward` split. Returns how many.
 */
function keepMarked(index: NodeIndex, n: number, marked: Uint8Array): number {
  const found = index.found();
  let kept = 0;
  for (let k = 0; k < n; k++) if (marked[found[k]!] === 1) found[kept++] = found[k]!;
  return kept;
}

/** Slots of an order: its columns' when it has them. */
function slotCount(d: OrderDirective, slots: OrderSlots | undefined): number {
  return slots ? slots.at.length - 1 : d.filters.length;
}

/**
 * Number of independent parts among a slot's ops (slot number `slot`, `filters` filters): ops
 * joined by a direct data edge across filters belong together (regions of one stage); separate
 * parts run overlapped.
 */
function independentParts(
  members: readonly number[],
  filters: number,
  slot: number,
  slotOf: Int32Array,
  filterOf: Int32Array,
  out: { offset: Int32Array; edge: Int32Array },
  to: Int32Array,
): number {
  const parent = Array.from({ length: filters }, (_, q) => q);
  const find = (x: number): number => {
    let r = x;
    while (parent[r] !== r) r = parent[r]!;
    return r;
  };
  const used = new Array<boolean>(filters).fill(false);
  for (const m of members) {
    used[filterOf[m]!] = true;
    for (let k = out.offset[m]!; k < out.offset[m + 1]!; k++) {
      const t = to[out.edge[k]!]!;
      if (t < slotOf.length && slotOf[t] === slot) parent[find(filterOf[m]!)] = find(filterOf[t]!);
    }
  }
  let parts = 0;
  for (let q = 0; q < filters; q++) if (used[q] && parent[q] === q) parts++;
  return parts;
}
