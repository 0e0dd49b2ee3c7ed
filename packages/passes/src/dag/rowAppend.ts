/**
 * Rows a pass adds to the node table one by one, before it knows how many (collectives per
 * bucket, an all-to-all per crossing tensor, a RECOMPUTE per forward): collected here, then
 * appended to the table in one `grow` (ir/nodeTable.ts). A row's index is known when it is
 * added, so edges to it can be written at once.
 */
import { grow, Names, type NodeTable, type OwnTable, type RowColumn, withEntries } from '@stagecraft/ir';

interface Row {
  op: number;
  /** The node whose block and split indices the row takes (−1: none). */
  like: number;
  block: number;
  group: number;
  stream: number;
  directive: number;
  alloc: number;
  free: number;
  bytes: number;
  /** An id the naming rule would not give (collectives). */
  id: string | undefined;
}

export class RowAppend {
  private readonly rows: Row[] = [];
  private readonly names: Names;
  private readonly pass: number;

  /** Rows made by `pass`, to be appended to table `t`. */
  constructor(
    private readonly t: NodeTable,
    pass: string,
  ) {
    this.names = new Names(t.names);
    this.pass = this.names.index(pass);
  }

  /**
   * Adds a row: op code, the node whose block and split indices it takes, its group, stream
   * and directive, memory effects and bytes, and an id when the naming rule does not give it.
   * Returns the row's index in the table to come.
   */
  add(r: {
    op: number;
    like: number;
    group: number;
    stream: string;
    directive: number;
    alloc?: number;
    free?: number;
    bytes?: number;
    id?: string;
    block?: number;
  }): number {
    this.rows.push({
      op: r.op,
      like: r.like,
      block: r.block ?? (r.like >= 0 ? this.t.block[r.like]! : -1),
      group: r.group,
      stream: this.names.index(r.stream),
      directive: r.directive,
      alloc: r.alloc ?? 0,
      free: r.free ?? 0,
      bytes: r.bytes ?? 0,
      id: r.id,
    });
    return this.t.length + this.rows.length - 1;
  }

  /** Rows added so far. */
  get count(): number {
    return this.rows.length;
  }

  /**
   * The table with the rows appended; `edits`: the columns the caller will still write at rows
   * of `t` (copies: see `grow`).
   */
  table(edits: readonly RowColumn[] = []): OwnTable {
    const t = this.t;
    const out = grow(t, this.rows.length, edits);
    const ids: [number, string][] = [];
    this.rows.forEach((r, k) => {
      const i = t.length + k;
      out.op[i] = r.op;
      out.block[i] = r.block;
      if (r.like >= 0) for (let d = 0; d < t.dims.length; d++) out.dims[d]![i] = t.dims[d]![r.like]!;
      out.group[i] = r.group;
      out.stream[i] = r.stream;
      out.provPass[i] = this.pass;
      out.provDirective[i] = r.directive;
      out.alloc[i] = r.alloc;
      out.free[i] = r.free;
      out.bytes[i] = r.bytes;
      if (r.id !== undefined) ids.push([i, r.id]);
    });
    out.names = this.names.names;
    if (ids.length > 0) out.ids = withEntries(t.ids, ids);
    return out;
  }
}
