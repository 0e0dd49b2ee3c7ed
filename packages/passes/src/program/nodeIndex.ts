/**
 * Filter matching over compute nodes. A filter is resolved to block sets, pass slots and split
 * indices, then looked up in a dense table keyed by (block, pass, split indices), so the tens of
 * thousands of fully specified filters a schedule expands into cost one lookup each.
 */
import {
  CompileError,
  type Dag,
  type Filter,
  formatPath,
  OP_RECOMPUTE,
  type OrderSlots,
  PASS_NAMES,
  type PathSegment,
  slotFilter,
  tableOf,
} from '@stagecraft/ir';

const PASS_SLOTS = ['F', 'B', 'BI', 'BW', 'RECOMPUTE'] as const;
const SLOT_OF: Record<string, number> = { F: 0, B: 1, BI: 2, BW: 3, RECOMPUTE: 4 };
const ANY = -2;

/**
 * What a filter key names: a split dimension, or a block tag with the values blocks give it and
 * the blocks of each value (`'*'`: every block with the tag).
 */
type Key =
  | { dim: number; values?: undefined }
  | { dim: -1; values: Set<number>; blocks: Map<number | '*', readonly number[]> };

/** The index of each DAG it was built or carried for (see `NodeIndex.of`). */
const indexOf = new WeakMap<Dag, NodeIndex>();

export class NodeIndex {
  private readonly table: Int32Array;
  private readonly radix: number[];
  private readonly blockTagValues = new Map<string, Set<number>>();
  private readonly blockSetCache = new Map<string, number[]>();
  /** Every key a filter may use except PASS, resolved once: one map lookup per filter key. */
  private readonly keys = new Map<string, Key>();
  private readonly allBlocks: number[];
  /** Scratch: the split index a filter asks for per dimension (ANY when it does not). */
  private readonly want: number[];
  /** What the last `find` found: `hits[0] .. hits[count−1]` (grown as needed, reused). */
  private hits = new Int32Array(64);
  private count = 0;
  private readonly cur: number[];

  /**
   * The index of `dag`, built on first use. Passes that keep every compute node where it was
   * (same block, pass and split indices) pass it on with `carry`, so a schedule's `place` and
   * `order` share one index instead of each scanning the whole DAG.
   */
  static of(dag: Dag): NodeIndex {
    let index = indexOf.get(dag);
    if (!index) indexOf.set(dag, (index = new NodeIndex(dag)));
    return index;
  }

  /**
   * Declares that `to` has the compute nodes of `from` at the same indices with the same block,
   * pass and split indices (its other nodes, if any, appended after them and not compute nodes of
   * a block): an index already built for `from` then serves `to` as it is.
   */
  static carry(from: Dag, to: Dag): void {
    const index = indexOf.get(from);
    if (index && from.blocks === to.blocks && from.dims === to.dims) indexOf.set(to, index);
  }

  // Only the blocks and dimensions are kept, not the DAG: an index carried to later DAGs must not
  // keep the nodes of the one it was built from alive.
  private readonly blocks: Dag['blocks'];
  private readonly dims: Dag['dims'];

  constructor(dag: Dag) {
    this.blocks = dag.blocks;
    this.dims = dag.dims;
    for (const b of dag.blocks) {
      for (const [k, v] of Object.entries(b.tags)) {
        let s = this.blockTagValues.get(k);
        if (!s) this.blockTagValues.set(k, (s = new Set()));
        s.add(v);
      }
    }
    for (const [k, values] of this.blockTagValues) {
      const blocks = new Map<number | '*', number[]>([['*', []]]);
      dag.blocks.forEach((b, i) => {
        const v = b.tags[k];
        if (v === undefined) return;
        blocks.get('*')!.push(i);
        let list = blocks.get(v);
        if (!list) blocks.set(v, (list = []));
        list.push(i);
      });
      this.keys.set(k, { dim: -1, values, blocks });
    }
    // A split dimension named like a block tag wins: a filter key names the dimension first.
    dag.dims.forEach((d, i) => {
      this.keys.set(d.name, { dim: i });
    });
    this.radix = dag.dims.map((d) => d.size + 1);
    this.want = dag.dims.map(() => ANY);
    this.cur = dag.dims.map(() => -1);
    this.allBlocks = dag.blocks.map((_, i) => i);
    const size = dag.blocks.length * PASS_SLOTS.length * this.radix.reduce((a, b) => a * b, 1);
    this.table = new Int32Array(size).fill(-1);
    // Pass slots are the op codes F, B, BI, BW, RECOMPUTE (nodeTable.ts), in that order.
    const t = tableOf(dag);
    const table = this.table;
    const radix = this.radix;
    const dims = t.dims;
    // Every column and bound a local, and one split dimension (the usual: microbatches) without
    // the inner loop: a process's first compile runs this loop interpreted for most of its
    // length (docs/performance.md, the cold run), where each read re-evaluated per node counts.
    const ops = t.op;
    const blocks = t.block;
    const n = t.length;
    const R = radix.length;
    const slots = PASS_SLOTS.length;
    if (R === 1) {
      const r0 = radix[0]!;
      const d0 = dims[0]!;
      for (let i = 0; i < n; i++) {
        const op = ops[i]!;
        const block = blocks[i]!;
        if (op > OP_RECOMPUTE || block < 0) continue;
        table[(block * slots + op) * r0 + d0[i]! + 1] = i;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      const block = blocks[i]!;
      if (op > OP_RECOMPUTE || block < 0) continue;
      let k = block * slots + op;
      for (let d = 0; d < R; d++) k = k * radix[d]! + dims[d]![i]! + 1;
      table[k] = i;
    }
  }

  private key(block: number, slot: number, dims: readonly number[]): number {
    let k = block * PASS_SLOTS.length + slot;
    for (let i = 0; i < this.radix.length; i++) k = k * this.radix[i]! + ((dims[i] ?? -1) + 1);
    return k;
  }

  /** Node at exactly this block, pass and split indices, or -1. */
  at(block: number, pass: string, dims: readonly number[]): number {
    const slot = SLOT_OF[pass];
    return slot === undefined ? -1 : this.table[this.key(block, slot, dims)]!;
  }

  /** Tag names a filter may use here, for error messages. */
  knownTags(): string[] {
    return [...this.blockTagValues.keys(), ...this.dims.map((d) => d.name), 'PASS'];
  }

  /**
   * Compute nodes matching `filter`, in table order. Throws a CompileError naming `path` (the
   * filter's place in the document; a function is called only then) when the filter names a tag
   * or index that does not exist.
   */
  match(filter: Filter, path: readonly PathSegment[] | (() => readonly PathSegment[])): number[] {
    const n = this.find(filter, path);
    const out = new Array<number>(n);
    for (let k = 0; k < n; k++) out[k] = this.hits[k]!;
    return out;
  }

  /**
   * `match` without a list per call, for the tens of thousands of filters of a schedule: the
   * number of nodes found, which `found(count)` then lists until the next `find`.
   */
  find(filter: Filter, path: readonly PathSegment[] | (() => readonly PathSegment[])): number {
    const dims = this.dims;
    const want = this.want;
    for (let i = 0; i < want.length; i++) want[i] = ANY;
    let slot = -1;
    // The block part: one tag (the common case, looked up directly) or several (`parts`).
    let tag: string | undefined;
    let tagValue: number | '*' = '*';
    let tagBlocks: readonly number[] = this.allBlocks;
    let parts: [string, number | '*'][] | undefined;
    let specified = 0;
    for (const k in filter) {
      const v = filter[k]!;
      if (k === 'PASS') {
        if (v !== '*') slot = SLOT_OF[v]!;
        continue;
      }
      const key = this.keys.get(k);
      if (key !== undefined && key.values === undefined) {
        const di = key.dim;
        if (v === '*') continue;
        const size = dims[di]!.size;
        if (typeof v !== 'number' || v >= size) {
          throw new CompileError({
            path: pathTo(path, k),
            message: `${k} has ${size} ${size === 1 ? 'index' : 'indices'} (0..${size - 1}), not ${v}`,
          });
        }
        if (want[di] === ANY) specified++;
        want[di] = v;
        continue;
      }
      if (!key) {
        throw new CompileError({
          path: pathTo(path, k),
          message: `no block has tag ${k} (tags here: ${this.knownTags().join(', ')})`,
        });
      }
      const withValue = key.blocks.get(v as number | '*');
      if (!withValue) {
        const sorted = [...key.values].sort((a, b) => a - b);
        throw new CompileError({
          path: pathTo(path, k),
          message: `no block has tag ${k}=${v} (${k} takes ${rangeText(sorted)})`,
        });
      }
      if (tag === undefined && parts === undefined) {
        tag = k;
        tagValue = v as number | '*';
        tagBlocks = withValue;
      } else {
        parts ??= [[tag!, tagValue]];
        parts.push([k, v as number | '*']);
      }
    }
    const blocks = parts ? this.blocksMatching(parts) : tagBlocks;
    this.count = 0;
    const s0 = Math.max(slot, 0);
    const s1 = slot < 0 ? PASS_SLOTS.length : slot + 1;
    if (specified === dims.length) {
      // Every split index given: one lookup per block and pass.
      for (let j = 0; j < blocks.length; j++)
        for (let s = s0; s < s1; s++) {
          const n = this.table[this.key(blocks[j]!, s, want)]!;
          if (n >= 0) this.hit(n);
        }
      return this.count;
    }
    const cur = this.cur;
    for (let i = 0; i < cur.length; i++) cur[i] = -1;
    for (let j = 0; j < blocks.length; j++) for (let s = s0; s < s1; s++) this.visit(blocks[j]!, s, 0, cur);
    return this.count;
  }

  /**
   * `find` of the k-th filter of an order's slot columns (ir/orderSlots.ts), without making the
   * filter: `{ PP, MB, PASS }` (and `DIR`) looked up directly when PP is a block tag and MB and
   * DIR split dimensions; any other case, and any filter that would fail, goes through `find`
   * with the filter itself, so the answer and the message are the same.
   */
  findSlot(
    slots: OrderSlots,
    k: number,
    path: readonly PathSegment[] | (() => readonly PathSegment[]),
    /** The PASS to look for instead of the filter's (an index into PASS_NAMES). */
    pass = slots.pass[k]!,
  ): number {
    const fast = (this.slotKeys ??= this.resolveSlotKeys());
    const blocks = fast?.pp.blocks.get(slots.pp[k]!);
    const dir = slots.dir[k]!;
    const mb = slots.mb[k]!;
    if (
      fast === null ||
      blocks === undefined ||
      mb >= this.dims[fast.mb]!.size ||
      (dir >= 0 ? fast.dir < 0 || dir >= this.dims[fast.dir]!.size : fast.dims !== 1)
    )
      return this.find(withPass(slots, k, pass), path);
    const want = this.want;
    for (let i = 0; i < want.length; i++) want[i] = ANY;
    want[fast.mb] = mb;
    if (dir >= 0) want[fast.dir] = dir;
    // Fully specified only: the lookup below; else (the DAG has other dimensions) `find`.
    if ((dir >= 0 ? 2 : 1) !== this.dims.length) return this.find(withPass(slots, k, pass), path);
    this.count = 0;
    for (let j = 0; j < blocks.length; j++) {
      const n = this.table[this.key(blocks[j]!, pass, want)]!;
      if (n >= 0) this.hit(n);
    }
    return this.count;
  }

  /** How the keys of slot filters resolve here, or null when not as `findSlot`'s fast path needs. */
  private slotKeys:
    | { pp: Extract<Key, { dim: -1 }>; mb: number; dir: number; dims: number }
    | null
    | undefined;

  private resolveSlotKeys(): { pp: Extract<Key, { dim: -1 }>; mb: number; dir: number; dims: number } | null {
    const pp = this.keys.get('PP');
    const mb = this.keys.get('MB');
    const dir = this.keys.get('DIR');
    if (pp === undefined || pp.values === undefined || mb === undefined || mb.values !== undefined)
      return null;
    if (dir !== undefined && dir.values !== undefined) return null;
    return { pp, mb: mb.dim, dir: dir?.dim ?? -1, dims: this.dims.length };
  }

  /**
   * The nodes the last `find` found: the first `count` entries (valid until the next `find`; no
   * view per call, for the same reason `find` makes no list).
   */
  found(): Int32Array {
    return this.hits;
  }

  private hit(n: number): void {
    if (this.count === this.hits.length) {
      const grown = new Int32Array(2 * this.count);
      grown.set(this.hits);
      this.hits = grown;
    }
    this.hits[this.count++] = n;
  }

  /** Appends every node of `block` and pass slot `s` whose unspecified split indices vary. */
  private visit(block: number, s: number, level: number, cur: number[]): void {
    const last = cur.length - 1;
    if (level > last) {
      const n = this.table[this.key(block, s, cur)]!;
      if (n >= 0) this.hit(n);
      return;
    }
    const w = this.want[level]!;
    if (level === last) {
      // The last dimension's indices sit side by side in the table: one key, then a scan.
      cur[level] = w === ANY ? -1 : w;
      const k0 = this.key(block, s, cur);
      const end = w === ANY ? k0 + this.radix[level]! : k0 + 1;
      // `hit` written out, the list and its count locals: a first run interprets this scan, and a
      // call per node found is most of its cost there.
      const table = this.table;
      let hits = this.hits;
      let count = this.count;
      for (let k = k0; k < end; k++) {
        const n = table[k]!;
        if (n < 0) continue;
        if (count === hits.length) {
          const grown = new Int32Array(2 * count);
          grown.set(hits);
          hits = grown;
        }
        hits[count++] = n;
      }
      this.hits = hits;
      this.count = count;
      return;
    }
    if (w !== ANY) {
      cur[level] = w;
      this.visit(block, s, level + 1, cur);
      return;
    }
    for (let c = -1; c < this.radix[level]! - 1; c++) {
      cur[level] = c;
      this.visit(block, s, level + 1, cur);
    }
  }

  private blocksMatching(part: [string, number | '*'][]): readonly number[] {
    const key = JSON.stringify(part);
    let hit = this.blockSetCache.get(key);
    if (!hit) {
      hit = [];
      this.blocks.forEach((b, i) => {
        if (part.every(([k, v]) => (v === '*' ? k in b.tags : b.tags[k] === v))) hit!.push(i);
      });
      this.blockSetCache.set(key, hit);
    }
    return hit;
  }
}

/** The k-th filter of `slots` with PASS `pass` (an index into PASS_NAMES). */
function withPass(slots: OrderSlots, k: number, pass: number): Filter {
  return { ...slotFilter(slots, k), PASS: PASS_NAMES[pass]! };
}

// A module function, not a closure in `match`: that runs once per filter, tens of thousands of
// times per compile, and only an error needs the path.
function pathTo(path: readonly PathSegment[] | (() => readonly PathSegment[]), k: string): string {
  return formatPath([...(typeof path === 'function' ? path() : path), k]);
}

function rangeText(sorted: number[]): string {
  const first = sorted[0]!;
  const last = sorted[sorted.length - 1]!;
  return last - first + 1 === sorted.length && sorted.length > 2 ? `${first}..${last}` : sorted.join(', ');
}
