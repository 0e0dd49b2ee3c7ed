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
  type Dag,
  EDGE_DATA,
  EDGE_TEMPORAL,
  type Filter,
  formatPath,
  grow,
  Names,
  nodeIdOf,
  OP_B,
  OP_BI,
  OP_ORDER_SINK,
  OP_RECOMPUTE,
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
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { interleavedSlot } from '../program/interleaveSlot.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';
import { splitHalves } from '../program/splitHalves.ts';

/** Above this many prev×next pairs, consecutive slots are joined through an ORDER_SINK node. */
const DIRECT_EDGE_LIMIT = 4;

export const orderPass: Pass = {
  name: 'order',
  reads: ['order', 'split_backward'],
  writes: [],
  run(dag, ctx) {
    const orders = directivesOf(ctx.program, 'order');
    if (orders.length === 0) return dag;
    const t = tableOf(dag);
    const N = t.length;
    const rowBase = new Int32Array(orders.length + 1);
    // A schedule's orders are slot columns (ir/orderSlots.ts): read as such, not as filter objects.
    const columns = orders.map(({ d }) => slotsOf(d));
    for (let oi = 0; oi < orders.length; oi++)
      rowBase[oi + 1] = rowBase[oi]! + slotCount(orders[oi]!.d, columns[oi]);
    // Mostly one edge joins a slot to the one before: about one per row.
    const halves = splitHalves(dag, ctx.program);
    const w = new SlotWriter(
      dag,
      ctx,
      orders,
      rowBase,
      new EdgeAppend(rowBase[orders.length], ctx.scratch),
      halves,
    );
    const { index } = w;
    for (let oi = 0; oi < orders.length; oi++) {
      const { d } = orders[oi]!;
      w.startOrder(oi);
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
          w.fj = j;
          w.fq = q;
          const k = slots ? slots.at[j]! + q : -1;
          const n = slots ? index.findSlot(slots, k, w.fpath) : index.find(slot![q]!, w.fpath);
          const before = count;
          count = w.take(n, here, q, w.members, count);
          if (halves && (slots ? slots.pass[k] === PASS_B : slot![q]!.PASS === 'B')) {
            // A B of a region split_backward split: its BI runs here, its BW right after.
            const bi = keepMarked(index, findAs(index, slots, k, slot?.[q], w.fpath, PASS_BI), halves);
            count = w.take(bi, here, q, w.members, count);
            const bw = keepMarked(index, findAs(index, slots, k, slot?.[q], w.fpath, PASS_BW), halves);
            bwCount = w.take(bw, here + 1, bwWidth, w.after, bwCount);
            if (bw > 0) bwWidth++;
          }
          if (count === before)
            throw new CompileError({ path: formatPath(w.fpath()), message: 'matches no op' });
        }
        w.close(w.members, count, width, here, j);
        w.swapMembers();
        if (bwCount > 0) {
          w.close(w.after, bwCount, bwWidth, here + 1, j);
          w.swapAfter();
        }
      }
    }
    const { slotOf, sinkId, sinkGroup, sinkDirective, overlaps, edges } = w;
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
        path: placed !== undefined ? formatPath(w.slotPath(placed)) : 'directives',
        message: `the order forms a cycle with the data dependencies: ${[...names, names[0]].join(' → ')}`,
      });
    }
    return next;
  },
};

/**
 * The state of one order pass as it writes slot after slot: where each node was ordered, the
 * temporal edges, ORDER_SINKs and overlaps it adds, and the order being written. A class rather
 * than closures made per order, so the hot calls keep one target from compile to compile.
 */
class SlotWriter {
  readonly index: NodeIndex;
  readonly N: number;
  readonly nodeGroup: Int32Array;
  /**
   * Where each node was ordered: a slot number, twice the row's number (the rows of all orders
   * counted in sequence; rowBase[oi] is order oi's first) plus one for the BW halves' slot, so no
   * per-slot record is kept and a slot's path is recovered only for a message.
   */
  readonly slotOf: Int32Array;
  /** Filter (within its slot) of each node of the current slot, for overlap detection. */
  readonly filterOf: Int32Array;
  /** ORDER_SINKs added, as rows appended after the others: group, directive, id. */
  readonly sinkGroup: number[] = [];
  readonly sinkDirective: number[] = [];
  readonly sinkId: string[] = [];
  readonly overlaps: OverlapSlot[];
  /** The ops of the slot before, of this one, and of its BW halves: buffers passed round. */
  prev: Int32Array;
  members: Int32Array;
  after: Int32Array;
  /** Out-edges only matter to slots of several filters (overlap detection): built on first use. */
  private out: Adjacency | undefined;
  /** The RECOMPUTE feeding each backward (B or BI), −1 if none; undefined when the DAG has none. */
  private readonly recomputeOf: Int32Array | undefined;
  // The order being written.
  private path: PathSegment[] = [];
  private directive = 0;
  private group = -1;
  private groupPath = '';
  private prevCount = 0;
  /** Row and filter being matched, for the path of a message. */
  fj = 0;
  fq = 0;
  /** The path of the filter being matched, built only for a message (one function per compile). */
  readonly fpath: () => PathSegment[];

  constructor(
    readonly dag: Dag,
    readonly ctx: PassContext,
    readonly orders: readonly { d: OrderDirective; index: number; path: PathSegment[] }[],
    readonly rowBase: Int32Array,
    readonly edges: EdgeAppend,
    halves: Uint8Array | undefined,
  ) {
    this.index = NodeIndex.of(dag);
    const t = tableOf(dag);
    this.N = t.length;
    this.nodeGroup = t.group;
    this.slotOf = ctx.scratch.int32(this.N, -1);
    this.filterOf = ctx.scratch.int32(this.N);
    this.overlaps = [...dag.overlaps];
    this.prev = ctx.scratch.int32(this.N);
    this.members = ctx.scratch.int32(this.N);
    // Only a program that splits backwards has BW halves to run after a row (an empty array is
    // not taken from the pool, where it would hold a buffer for nothing).
    this.after = halves ? ctx.scratch.int32(this.N) : new Int32Array(0);
    this.fpath = () => [...this.path, 'filters', this.fj, this.fq];
    this.recomputeOf = recomputesOf(dag, ctx);
  }

  startOrder(oi: number): void {
    const { index, path } = this.orders[oi]!;
    this.path = path;
    this.directive = index;
    this.group = -1;
    this.groupPath = '';
    this.prevCount = 0;
  }

  /** The path of slot `slot`'s row. */
  slotPath(slot: number): PathSegment[] {
    const row = slot >> 1;
    let oi = 0;
    while (this.rowBase[oi + 1]! <= row) oi++;
    return [...this.orders[oi]!.path, 'filters', row - this.rowBase[oi]!];
  }

  /** Orders the `n` nodes `index` found in slot `slot` as filter `q` of it, into `into`. */
  take(n: number, slot: number, q: number, into: Int32Array, count: number): number {
    const found = this.index.found();
    const { dag, nodeGroup, slotOf, filterOf } = this;
    for (let k = 0; k < n; k++) {
      const x = found[k]!;
      const g = nodeGroup[x]!;
      if (this.group < 0) {
        this.group = g;
        this.groupPath = formatPath(this.fpath());
      } else if (g !== this.group) {
        throw new CompileError({
          path: formatPath(this.fpath()),
          message: `matches ${nodeIdOf(dag, x)} on devices [${dag.groups[g]!.join(', ')}], but this order runs on devices [${dag.groups[this.group]!.join(', ')}] (from ${this.groupPath}); an order stays on one device group`,
        });
      }
      if (slotOf[x]! >= 0) {
        throw new CompileError({
          path: formatPath(this.fpath()),
          message: `${nodeIdOf(dag, x)} is already ordered by ${formatPath(this.slotPath(slotOf[x]!))}`,
        });
      }
      slotOf[x] = slot;
      filterOf[x] = q;
      into[count++] = x;
    }
    return count;
  }

  /** Runs the `count` ops of `ops` (`width` filters), slot `slot` of row `row`, after the slot before. */
  close(ops: Int32Array, count: number, width: number, slot: number, row: number): void {
    const { dag, edges, N } = this;
    if (width > 1) {
      // Slots of several filters (DualPipe's F&B, regions of a stage) decide how they run.
      const list = Array.from(ops.subarray(0, count));
      const adjacency = (this.out ??= outEdges(N, dag.edges, this.ctx.scratch));
      const zipper = interleavedSlot(dag, list, adjacency);
      if (zipper)
        for (let k = 1; k < zipper.length; k++) edges.add(zipper[k - 1]!, zipper[k]!, EDGE_TEMPORAL, 0);
      else if (independentParts(list, width, slot, this.slotOf, this.filterOf, adjacency, dag.edges.to) > 1)
        this.overlaps.push({ nodes: list, directive: this.directive });
    }
    const { prev, prevCount, recomputeOf } = this;
    if (prevCount > 0) {
      if (prevCount * count <= DIRECT_EDGE_LIMIT) {
        for (let a = 0; a < prevCount; a++)
          for (let b = 0; b < count; b++) {
            edges.add(prev[a]!, ops[b]!, EDGE_TEMPORAL, 0);
            const r = recomputeOf ? recomputeOf[ops[b]!]! : -1;
            if (r >= 0) edges.add(prev[a]!, r, EDGE_TEMPORAL, 0);
          }
      } else {
        const sink = N + this.sinkId.length;
        this.sinkGroup.push(this.group);
        this.sinkDirective.push(this.directive);
        // The BW halves' slot is not a row of the order: its sink is named after the row's.
        const at: PathSegment[] = [...this.path, 'filters', row, ...(slot & 1 ? ['BW'] : [])];
        this.sinkId.push(`ORDER_SINK.${formatPath(at)}`);
        for (let a = 0; a < prevCount; a++) edges.add(prev[a]!, sink, EDGE_TEMPORAL, 0);
        for (let b = 0; b < count; b++) {
          edges.add(sink, ops[b]!, EDGE_TEMPORAL, 0);
          const r = recomputeOf ? recomputeOf[ops[b]!]! : -1;
          if (r >= 0) edges.add(sink, r, EDGE_TEMPORAL, 0);
        }
      }
    }
    this.prevCount = count;
  }

  /** The row just closed becomes the slot before. */
  swapMembers(): void {
    const done = this.prev;
    this.prev = this.members;
    this.members = done;
  }

  /** The BW halves' slot just closed becomes the slot before. */
  swapAfter(): void {
    const spare = this.prev;
    this.prev = this.after;
    this.after = spare;
  }
}

/**
 * The RECOMPUTE feeding each backward (B, or BI of a split one), or undefined when there is none.
 * A RECOMPUTE runs after whatever its backward's slot follows, i.e. immediately before that
 * backward on its stream, as Megatron re-runs a checkpointed layer inside the backward step: left
 * to the data order alone, it is issued as soon as its forward has run and waits for its gradient
 * there, ahead of forwards that are ready.
 */
function recomputesOf(dag: Dag, ctx: PassContext): Int32Array | undefined {
  const t = tableOf(dag);
  let any = false;
  for (let i = 0; i < t.length && !any; i++) any = t.op[i] === OP_RECOMPUTE;
  if (!any) return undefined;
  const of = ctx.scratch.int32(t.length, -1);
  const { from, to, kind } = dag.edges;
  for (let j = 0; j < from.length; j++) {
    const u = from[j]!;
    const v = to[j]!;
    if (kind[j] === EDGE_DATA && t.op[u] === OP_RECOMPUTE && (t.op[v] === OP_B || t.op[v] === OP_BI))
      of[v] = u;
  }
  return of;
}

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
