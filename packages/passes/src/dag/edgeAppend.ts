/**
 * Edges a pass adds after the existing ones, collected in typed columns that double when full and
 * joined to the old columns with one copy each at the end.
 */
import { type ArraySource, type EdgeKind, type EdgeList, edgeColumns, joinEdges } from '@stagecraft/ir';

export class EdgeAppend {
  private cols: EdgeList;
  private count = 0;

  /**
   * `expected`: about how many edges will be added, so the columns are allocated once.
   * `scratch`: where those first columns come from, when the caller's loan outlives the join
   * (`onto` copies them; nothing keeps them): memory from the pass's loan rather than new memory
   * the garbage collector must reclaim (order expects one edge per slot row: 65,536 rows, 1.1 MB,
   * on the bench's target).
   */
  constructor(expected = 0, scratch?: ArraySource) {
    const size = Math.max(16, expected);
    this.cols = scratch
      ? {
          from: scratch.int32(size),
          to: scratch.int32(size),
          kind: scratch.uint8(size),
          bytes: scratch.float64(size),
        }
      : edgeColumns(size);
  }

  add(u: number, v: number, kind: EdgeKind, bytes: number): void {
    if (this.count === this.cols.from.length) this.cols = grown(this.cols, 2 * this.count);
    const i = this.count++;
    this.cols.from[i] = u;
    this.cols.to[i] = v;
    this.cols.kind[i] = kind;
    this.cols.bytes[i] = bytes;
  }

  /** The old edges followed by the added ones (the old columns themselves when none were added). */
  onto(edges: EdgeList): EdgeList {
    if (this.count === 0) return edges;
    const added = this.cols;
    const n = this.count;
    return joinEdges(edges, {
      from: added.from.subarray(0, n),
      to: added.to.subarray(0, n),
      kind: added.kind.subarray(0, n),
      bytes: added.bytes.subarray(0, n),
    });
  }
}

/** Columns of `size` edges holding `e`'s. */
export function grown(e: EdgeList, size: number): EdgeList {
  const out = edgeColumns(size);
  out.from.set(e.from);
  out.to.set(e.to);
  out.kind.set(e.kind);
  out.bytes.set(e.bytes);
  return out;
}
