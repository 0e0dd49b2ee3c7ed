/**
 * Typed columns that lengthen in place. A pass that appends rows to the DAG (SEND/RECVs, UPDs,
 * ORDER_SINKs, temporal edges) would otherwise copy every column of hundreds of thousands of
 * rows to add a few; instead columns are allocated with room to spare, and a lengthened column is
 * a longer view of the same memory, written only past the rows its input uses.
 *
 * The input's view still ends where it did, so it never sees the new rows: columns stay values
 * (a pass never writes its input's rows). The memory records how many of its rows some column
 * uses; only a column that ends there may be lengthened in place, so two passes that append to
 * the same input (a compile and a later incremental one) never write the same rows: the second
 * gets a copy.
 */

export type Column = Int32Array | Float64Array | Uint8Array;

/**
 * The memory of columns `newColumn` made: an ArrayBuffer that says how many of its rows some
 * column uses. Only this memory lengthens in place: a column over any other buffer may be a view
 * of memory that something else uses past its end. (A copy of it made by structured cloning is a
 * plain ArrayBuffer, and is copied again to grow.)
 */
class ColumnMemory extends ArrayBuffer {
  /** Rows some column over this memory uses: the only column that may lengthen in place ends here. */
  usedRows: number;

  constructor(bytes: number, usedRows: number) {
    super(bytes);
    this.usedRows = usedRows;
  }
}

/**
 * Spare rows given to a column copied to grow: a third more, and at least 1024. Enough for the
 * passes after insert-send-recv to append in place: UPDs and their edges, about one temporal edge
 * per ordered op, collectives.
 */
export function headroom(length: number): number {
  return Math.floor(length / 3) + 1024;
}

/** A column of `length` rows with `spare` rows of room after them, every row zero. */
export function newColumn<T extends Column>(
  Kind: new (buffer: ArrayBuffer, offset: number, length: number) => T,
  bytesPerRow: number,
  length: number,
  spare: number,
): T {
  return new Kind(new ColumnMemory((length + spare) * bytesPerRow, length), 0, length);
}

/**
 * `c` lengthened to `length` rows, the new rows set to `fill`: the same memory when `c` ends
 * where its buffer's used rows end and the buffer has room, else a copy with `spare` rows of room.
 */
export function lengthened<T extends Column>(
  c: T,
  length: number,
  fill: number,
  spare = headroom(length),
): T {
  const old = c.length;
  if (length <= old) return c;
  const buffer = c.buffer;
  const bytes = c.BYTES_PER_ELEMENT;
  const Kind = c.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => T;
  if (
    !(buffer instanceof ColumnMemory) ||
    c.byteOffset !== 0 ||
    buffer.byteLength < length * bytes ||
    buffer.usedRows !== old
  )
    return copied(c, length, fill, spare);
  buffer.usedRows = length;
  const out = new Kind(buffer, 0, length);
  // Rows past the used ones may hold what an abandoned lengthening wrote: set them all.
  out.fill(fill, old);
  return out;
}

/** A copy of `c`, `length` rows long (rows past `c`'s set to `fill`), with `spare` rows of room. */
export function copied<T extends Column>(c: T, length: number, fill: number, spare: number): T {
  const Kind = c.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => T;
  const out = newColumn(Kind, c.BYTES_PER_ELEMENT, length, spare);
  out.set(c);
  if (length > c.length) out.fill(fill, c.length);
  return out;
}

/**
 * A copy of `c` for a pass to edit, with as much room to lengthen into as `c`'s memory has: a
 * pass that rewrites a column in place (`place`) keeps the room that the pass that made it left
 * for the rows later passes append.
 */
export function editable<T extends Column>(c: T): T {
  const room = c.byteOffset === 0 ? c.buffer.byteLength / c.BYTES_PER_ELEMENT - c.length : 0;
  return copied(c, c.length, 0, room);
}

/** The first `length` rows of `c`: a view, so what lies past them stays room to lengthen into. */
export function shortened<T extends Column>(c: T, length: number): T {
  if (length >= c.length) return c;
  const buffer = c.buffer;
  if (buffer instanceof ColumnMemory && c.byteOffset === 0 && buffer.usedRows === c.length)
    buffer.usedRows = length;
  return c.subarray(0, length) as T;
}
