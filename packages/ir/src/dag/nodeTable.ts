/**
 * The DAG's nodes as columns: one typed array per field, one row per node. A large design has
 * hundreds of thousands of nodes and every pass reads them all; as objects they cost the passes
 * their time in allocation and garbage collection, as columns a pass is a few linear sweeps over
 * typed arrays and a copy of only the columns it changes. `Dag.nodes` (dagTable.ts) is the same
 * nodes as objects, made from these columns when first read.
 *
 * Columns are values: a pass never writes the columns of its input. It copies the ones it changes
 * (`grow` copies them all and appends rows) and shares the rest with its input, so a snapshot
 * after each pass costs only what the pass changed.
 */

import { copied, headroom, lengthened, newColumn, shortened } from '../memory/columns.ts';
import type { DagNode, NodeOp } from './dag.ts';

/** Op of each code: a row's `op` indexes this list. */
export const NODE_OPS = [
  'F',
  'B',
  'BI',
  'BW',
  'RECOMPUTE',
  'UPD',
  'SEND',
  'RECV',
  'ALL_REDUCE',
  'REDUCE_SCATTER',
  'ALL_GATHER',
  'ALL_TO_ALL',
  'OFFLOAD',
  'RELOAD',
  'ORDER_SOURCE',
  'ORDER_SINK',
] as const satisfies readonly NodeOp[];

export const OP_F = 0;
export const OP_B = 1;
export const OP_BI = 2;
export const OP_BW = 3;
export const OP_RECOMPUTE = 4;
export const OP_UPD = 5;
export const OP_SEND = 6;
export const OP_RECV = 7;
export const OP_ALL_REDUCE = 8;
export const OP_REDUCE_SCATTER = 9;
export const OP_ALL_GATHER = 10;
export const OP_ALL_TO_ALL = 11;
export const OP_OFFLOAD = 12;
export const OP_RELOAD = 13;
export const OP_ORDER_SOURCE = 14;
export const OP_ORDER_SINK = 15;

const CODE_OF = new Map<string, number>(NODE_OPS.map((op, i) => [op, i]));

/** The code of an op name (−1 for a name that is no op). */
export function opCode(op: string): number {
  return CODE_OF.get(op) ?? -1;
}

export function isCollectiveCode(code: number): boolean {
  return code >= OP_ALL_REDUCE && code <= OP_ALL_TO_ALL;
}

/** The node kind of an op code. */
export function kindOfCode(code: number): DagNode['kind'] {
  if (code <= OP_UPD) return 'compute';
  if (code <= OP_RECV) return 'p2p';
  if (code <= OP_ALL_TO_ALL) return 'collective';
  if (code <= OP_RELOAD) return 'memory';
  return 'control';
}

export interface NodeTable {
  readonly length: number;
  /** Op code (NODE_OPS). */
  readonly op: Uint8Array;
  /** Model block; −1 for device-group ops (UPD) and control nodes. */
  readonly block: Int32Array;
  /** Per split dimension of the DAG (`dag.dims`), each node's index along it; −1 where not split. */
  readonly dims: readonly Int32Array[];
  /** Device group; −1 until placed. */
  readonly group: Int32Array;
  /** Logical stream, an index into `names`. */
  readonly stream: Int32Array;
  /** Compute ops: the stream their cross-group SEND/RECVs run on (index into `names`; −1: the default). */
  readonly p2pStream: Int32Array;
  /** Provenance: the pass (index into `names`) and directive (−1: the model itself) that made or last changed the node. */
  readonly provPass: Int32Array;
  readonly provDirective: Int32Array;
  /** Compute ops: bytes allocated at the start and released at the end. */
  readonly alloc: Float64Array;
  readonly free: Float64Array;
  /** Communication and memory ops: bytes moved. */
  readonly bytes: Float64Array;
  /** SEND/RECV: the group on the other side; −1 elsewhere. */
  readonly peer: Int32Array;
  /** SEND/RECV and context parallelism's K/V exchanges: op code of the op whose output moves (or that they serve). */
  readonly pass: Uint8Array;
  /**
   * SEND/RECV: the node whose output moves, which names the transfer (its id and the first device
   * of the receiving group); −1 elsewhere. Passes append nodes and never reorder them once
   * SEND/RECVs exist, so the index stays the producer's.
   */
  readonly source: Int32Array;
  /** The strings the name columns index: streams and pass names. */
  readonly names: readonly string[];
  /** Ids the naming rule (dagTable.ts) does not give: collectives, ORDER_SINK, nodes read from objects. */
  readonly ids: ReadonlyMap<number, string>;
  /** SEND/RECV transfers the naming rule does not give (nodes read from objects). */
  readonly transfers: ReadonlyMap<number, string>;
  /** Collectives whose devices are not their group's (nodes read from objects). */
  readonly devices: ReadonlyMap<number, readonly number[]>;
}

/** A table whose columns the pass that made it may still write (fresh copies, not its input's). */
export type OwnTable = { -readonly [K in keyof NodeTable]: NodeTable[K] };

const NO_ENTRIES: ReadonlyMap<number, never> = new Map<number, never>();

/** The row columns of a table by name (every field but the sparse maps, names and length). */
export type RowColumn = Exclude<
  keyof NodeTable,
  'length' | 'dims' | 'names' | 'ids' | 'transfers' | 'devices'
>;

const DEFAULTS: Readonly<Record<RowColumn, number>> = {
  op: 0,
  block: -1,
  group: -1,
  stream: 0,
  p2pStream: -1,
  provPass: 0,
  provDirective: -1,
  alloc: 0,
  free: 0,
  bytes: 0,
  peer: -1,
  pass: 0,
  source: -1,
};

function int32(length: number, spare: number, fill: number): Int32Array {
  const c = newColumn(Int32Array, 4, length, spare);
  if (fill !== 0) c.fill(fill);
  return c;
}

/**
 * A table of `length` rows with every field at its default (see `grow`), with room for `spare`
 * more rows to be appended in place (columns.ts).
 */
export function newTable(length: number, dimCount: number, names: readonly string[], spare = 0): OwnTable {
  return {
    length,
    op: newColumn(Uint8Array, 1, length, spare),
    block: int32(length, spare, -1),
    dims: Array.from({ length: dimCount }, () => int32(length, spare, -1)),
    group: int32(length, spare, -1),
    stream: int32(length, spare, 0),
    p2pStream: int32(length, spare, -1),
    provPass: int32(length, spare, 0),
    provDirective: int32(length, spare, -1),
    alloc: newColumn(Float64Array, 8, length, spare),
    free: newColumn(Float64Array, 8, length, spare),
    bytes: newColumn(Float64Array, 8, length, spare),
    peer: int32(length, spare, -1),
    pass: newColumn(Uint8Array, 1, length, spare),
    source: int32(length, spare, -1),
    names,
    ids: NO_ENTRIES,
    transfers: NO_ENTRIES,
    devices: NO_ENTRIES,
  };
}

/**
 * `t` with `extra` rows appended at their defaults (block, group, peer, source −1; no p2p stream;
 * the model's provenance; no bytes), for the caller to fill. Columns are lengthened in place
 * where they can be (columns.ts): their rows before `t.length` are then `t`'s own and must not be
 * written. The columns named in `edits` are copies, whose every row the caller may write. A
 * column copied gets `spare` rows of room (by default columns.ts' headroom) for later appends.
 */
export function grow(
  t: NodeTable,
  extra: number,
  edits: readonly (RowColumn | 'dims')[] = [],
  spare = headroom(t.length + extra),
): OwnTable {
  const n = t.length + extra;
  const col = <K extends RowColumn>(k: K): OwnTable[K] =>
    (edits.includes(k)
      ? copied(t[k], n, DEFAULTS[k], spare)
      : lengthened(t[k], n, DEFAULTS[k], spare)) as OwnTable[K];
  return {
    length: n,
    op: col('op'),
    block: col('block'),
    dims: t.dims.map((c) => (edits.includes('dims') ? copied(c, n, -1, spare) : lengthened(c, n, -1, spare))),
    group: col('group'),
    stream: col('stream'),
    p2pStream: col('p2pStream'),
    provPass: col('provPass'),
    provDirective: col('provDirective'),
    alloc: col('alloc'),
    free: col('free'),
    bytes: col('bytes'),
    peer: col('peer'),
    pass: col('pass'),
    source: col('source'),
    names: t.names,
    ids: t.ids,
    transfers: t.transfers,
    devices: t.devices,
  };
}

/**
 * `t` with some columns replaced (same length). Field by field rather than by a spread, so that
 * every table has one hidden class and the passes reading them stay optimised.
 */
export function withColumns(t: NodeTable, c: Partial<OwnTable>): OwnTable {
  return {
    length: c.length ?? t.length,
    op: c.op ?? t.op,
    block: c.block ?? t.block,
    dims: c.dims ?? t.dims,
    group: c.group ?? t.group,
    stream: c.stream ?? t.stream,
    p2pStream: c.p2pStream ?? t.p2pStream,
    provPass: c.provPass ?? t.provPass,
    provDirective: c.provDirective ?? t.provDirective,
    alloc: c.alloc ?? t.alloc,
    free: c.free ?? t.free,
    bytes: c.bytes ?? t.bytes,
    peer: c.peer ?? t.peer,
    pass: c.pass ?? t.pass,
    source: c.source ?? t.source,
    names: c.names ?? t.names,
    ids: c.ids ?? t.ids,
    transfers: c.transfers ?? t.transfers,
    devices: c.devices ?? t.devices,
  };
}

/** The first `length` rows of a table `grow` made larger than it needed (views: the rest stays room). */
export function truncate(t: OwnTable, length: number): OwnTable {
  if (length === t.length) return t;
  return withColumns(t, {
    length,
    op: shortened(t.op, length),
    block: shortened(t.block, length),
    dims: t.dims.map((c) => shortened(c, length)),
    group: shortened(t.group, length),
    stream: shortened(t.stream, length),
    p2pStream: shortened(t.p2pStream, length),
    provPass: shortened(t.provPass, length),
    provDirective: shortened(t.provDirective, length),
    alloc: shortened(t.alloc, length),
    free: shortened(t.free, length),
    bytes: shortened(t.bytes, length),
    peer: shortened(t.peer, length),
    pass: shortened(t.pass, length),
    source: shortened(t.source, length),
  });
}

/** Interns names for the rows a pass writes: the table's own list, extended on the first new name. */
export class Names {
  private list: readonly string[];
  private own = false;
  constructor(names: readonly string[]) {
    this.list = names;
  }
  index(name: string): number {
    const i = this.list.indexOf(name);
    if (i >= 0) return i;
    if (!this.own) {
      this.list = [...this.list];
      this.own = true;
    }
    (this.list as string[]).push(name);
    return this.list.length - 1;
  }
  get names(): readonly string[] {
    return this.list;
  }
}

/** A copy of a sparse map of a table with `entries` added (the original is shared with other tables). */
export function withEntries<V>(
  map: ReadonlyMap<number, V>,
  entries: Iterable<readonly [number, V]>,
): ReadonlyMap<number, V> {
  const out = new Map(map);
  for (const [k, v] of entries) out.set(k, v);
  return out;
}
