/**
 * A `Dag` whose nodes live in a `NodeTable` (nodeTable.ts). Passes read and write the columns;
 * `dag.nodes`, the node objects the public shape promises, is made from them the first time it is
 * read, so a compile that nobody inspects never builds an object per node.
 *
 * Ids are not stored: they follow from what a node is (`<op>.b<block>` and its split indices,
 * `UPD.d<first device>`, `SEND.<transfer>` with the transfer named by the producer's id and the
 * first device of the receiving group), and only the ids that do not (collectives, ORDER_SINK)
 * are kept in `table.ids`. A DAG built from node objects (a test's, a deserialised one) has no
 * table; `tableOf` makes one from its nodes, keeping every id, transfer and device list that the
 * rule would not give.
 *
 * What a DAG made from a table carries is one declared field, `dag.rows` (the table, the parent,
 * the ids made so far), not side tables keyed by the DAG: which path a function takes is read
 * off the DAG itself.
 *
 * A DAG made with a `parent` (the DAG the pass read, when snapshots are kept) reuses the parent's
 * node object for every row the pass did not change: snapshots then share their unchanged nodes,
 * as identity-based diffs and serialisers expect.
 */
import { collectiveNode, memoryNode } from './commNodes.ts';
import {
  type CollectiveOp,
  type ComputeOp,
  computeNode,
  type Dag,
  type DagNode,
  type MemoryOp,
  type P2POp,
  type Provenance,
  p2pNode,
} from './dag.ts';
import {
  kindOfCode,
  NODE_OPS,
  type NodeTable,
  newTable,
  OP_RECV,
  OP_SEND,
  OP_UPD,
  type OwnTable,
  opCode,
} from './nodeTable.ts';

/** Every field of a `Dag` but its nodes (and the columns they are made from). */
export type DagParts = Omit<Dag, 'nodes' | 'rows'>;

/** A DAG's `rows`: what a DAG made from a node table carries besides its public fields. */
export interface DagRows {
  /** The columns its nodes are read from. */
  readonly table: NodeTable;
  /**
   * The DAG whose rows 0..its length−1 are this one's rows in the same order (the pass kept or
   * edited them in place and appended the rest), when its node objects are to be shared.
   */
  readonly parent: Dag | undefined;
  /**
   * Ids by row, made as `nodeIdOf` asks for them (the array on the first ask). The DAG's, not the
   * table's: the naming rule reads the DAG's groups and split dimensions too, which DAGs sharing
   * a table need not share.
   */
  ids: (string | undefined)[] | undefined;
}

/**
 * The DAG of `parts` with the nodes of `table`. `parent`: the DAG whose rows 0..parent's length−1
 * are this one's rows in the same order (the pass kept or edited them in place and appended the
 * rest), given when its node objects should be shared.
 */
export function dagOf(parts: DagParts, table: NodeTable, parent?: Dag): Dag {
  // Built property by property, with one getter shared by every DAG, so that all DAGs share one
  // hidden class in fast mode (an object literal with a getter, or a data property redefined as
  // one, makes each a dictionary): passes read DAG fields in code V8 optimises for that class.
  const dag = { blocks: parts.blocks, dims: parts.dims, groups: parts.groups } as Dag;
  Object.defineProperty(dag, 'nodes', { get: nodesOfTable, enumerable: true, configurable: true });
  const mutable = dag as { -readonly [K in keyof Dag]: Dag[K] };
  mutable.edges = parts.edges;
  mutable.overlaps = parts.overlaps;
  mutable.streams = parts.streams;
  if (parts.dataParallel !== undefined) mutable.dataParallel = parts.dataParallel;
  if (parts.tensorParallel !== undefined) mutable.tensorParallel = parts.tensorParallel;
  if (parts.contextParallel !== undefined) mutable.contextParallel = parts.contextParallel;
  if (parts.jointCollectives !== undefined) mutable.jointCollectives = parts.jointCollectives;
  if (parts.meshes !== undefined) mutable.meshes = parts.meshes;
  if (parts.subgroups !== undefined) mutable.subgroups = parts.subgroups;
  const rows: DagRows = { table, parent, ids: undefined };
  Object.defineProperty(dag, 'rows', { value: rows });
  return dag;
}

/** `dag.nodes` of a DAG made by `dagOf`: the objects, made on first read and kept. */
function nodesOfTable(this: Dag): readonly DagNode[] {
  const nodes = materialize(this);
  Object.defineProperty(this, 'nodes', {
    value: nodes,
    enumerable: true,
    writable: false,
    configurable: true,
  });
  return nodes;
}

/** Every part of `dag` but its nodes (which it does not read). */
export function partsOf(dag: Dag): DagParts {
  const parts: { -readonly [K in keyof DagParts]: DagParts[K] } = {
    blocks: dag.blocks,
    dims: dag.dims,
    groups: dag.groups,
    edges: dag.edges,
    overlaps: dag.overlaps,
    streams: dag.streams,
  };
  if (dag.dataParallel !== undefined) parts.dataParallel = dag.dataParallel;
  if (dag.tensorParallel !== undefined) parts.tensorParallel = dag.tensorParallel;
  if (dag.contextParallel !== undefined) parts.contextParallel = dag.contextParallel;
  if (dag.jointCollectives !== undefined) parts.jointCollectives = dag.jointCollectives;
  if (dag.meshes !== undefined) parts.meshes = dag.meshes;
  if (dag.subgroups !== undefined) parts.subgroups = dag.subgroups;
  return parts;
}

/**
 * The same DAG with some parts replaced and, optionally, a new table. `shareNodes`: the new
 * table's rows are the input's at the same indices (edited in place or not at all, others
 * appended), so unchanged rows keep their node objects (see `dagOf`'s parent).
 */
export function withParts(dag: Dag, parts: Partial<DagParts>, table?: NodeTable, shareNodes = false): Dag {
  return dagOf({ ...partsOf(dag), ...parts }, table ?? tableOf(dag), shareNodes ? dag : undefined);
}

/**
 * The nodes of `dag` as columns: its own table, or, for a DAG given as node objects, one made from
 * them on every call (such DAGs are a test's or a deserialised one: the compiler makes each DAG it
 * reads with a table).
 */
export function tableOf(dag: Dag): NodeTable {
  return dag.rows?.table ?? fromNodes(dag);
}

/** Whether `dag.nodes` exists as objects already (reading it would not build them). */
export function hasNodeObjects(dag: Dag): boolean {
  return Object.getOwnPropertyDescriptor(dag, 'nodes')?.get === undefined;
}

// ---- ids ----

/**
 * The id of node `i`: by the naming rule and the table's own ids (kept in the DAG's rows once
 * made), or a node object's own for a DAG given as node objects.
 */
export function nodeIdOf(dag: Dag, i: number): string {
  const rows = dag.rows;
  if (rows === undefined) return dag.nodes[i]!.id;
  const ids = (rows.ids ??= new Array(rows.table.length));
  return (ids[i] ??= ruleId(dag, rows.table, i, ids));
}

/** How many nodes the DAG has, without making its node objects. */
export function nodeCount(dag: Dag): number {
  return dag.rows?.table.length ?? dag.nodes.length;
}

/** The transfer a SEND or RECV belongs to. */
export function transferOf(dag: Dag, i: number): string {
  if (dag.rows === undefined) {
    const x = dag.nodes[i]!;
    if (x.kind === 'p2p') return x.transfer;
  }
  const t = tableOf(dag);
  return t.transfers.get(i) ?? ruleTransfer(dag, t, i, (k) => nodeIdOf(dag, k));
}

function ruleTransfer(dag: DagParts, t: NodeTable, i: number, idOf: (k: number) => string): string {
  const to = t.op[i] === OP_SEND ? t.peer[i]! : t.group[i]!;
  return `${idOf(t.source[i]!)}.d${dag.groups[to]?.[0]}`;
}

function ruleId(dag: DagParts, t: NodeTable, i: number, cache: (string | undefined)[]): string {
  const own = t.ids.get(i);
  if (own !== undefined) return own;
  const op = t.op[i]!;
  if (op === OP_SEND || op === OP_RECV) {
    const transfer =
      t.transfers.get(i) ?? ruleTransfer(dag, t, i, (k) => (cache[k] ??= ruleId(dag, t, k, cache)));
    return `${NODE_OPS[op]}.${transfer}`;
  }
  if (op === OP_UPD) return `UPD.d${dag.groups[t.group[i]!]?.[0]}`;
  let id = `${NODE_OPS[op]}.b${t.block[i]}`;
  const dims = t.dims;
  for (let d = 0; d < dims.length; d++) {
    const v = dims[d]![i]!;
    if (v >= 0) id += `.${dag.dims[d]!.name.toLowerCase()}${v}`;
  }
  return id;
}

// ---- node objects from rows ----

interface Shared {
  /** Per provenance pass (index into the table's names): the record of each directive. */
  provenance: Map<number, Provenance>[];
  dims: Map<number, readonly number[]>;
  radix: number[];
}

function provenanceOf(s: Shared, t: NodeTable, i: number): Provenance {
  const pass = t.provPass[i]!;
  const directive = t.provDirective[i]!;
  const byDirective = (s.provenance[pass] ??= new Map());
  let p = byDirective.get(directive);
  if (!p)
    byDirective.set(directive, (p = { pass: t.names[pass]!, directive: directive < 0 ? null : directive }));
  return p;
}

const NO_DIMS: readonly number[] = [];

function dimsOf(s: Shared, t: NodeTable, i: number): readonly number[] {
  const cols = t.dims;
  if (cols.length === 0) return NO_DIMS;
  let key = 0;
  for (let d = 0; d < cols.length; d++) key = key * s.radix[d]! + cols[d]![i]! + 1;
  let dims = s.dims.get(key);
  if (!dims) {
    const list = new Array<number>(cols.length);
    for (let d = 0; d < cols.length; d++) list[d] = cols[d]![i]!;
    s.dims.set(key, (dims = list));
  }
  return dims;
}

function materialize(dag: Dag): readonly DagNode[] {
  const { table: t, parent } = dag.rows!;
  const reuse = parent ? reusable(dag, t, parent) : undefined;
  const shared: Shared = { provenance: [], dims: new Map(), radix: dag.dims.map((d) => d.size + 2) };
  const nodes = new Array<DagNode>(t.length);
  for (let i = 0; i < t.length; i++) {
    const old = reuse?.(i);
    nodes[i] = old ?? nodeAt(dag, t, i, shared);
  }
  return nodes;
}

/** The parent's node object for row i when the row is unchanged, for a DAG made with a parent. */
function reusable(dag: Dag, t: NodeTable, parent: Dag): ((i: number) => DagNode | undefined) | undefined {
  const p = tableOf(parent);
  if (!sameShape(dag.dims, parent.dims) || !sameShape(dag.groups, parent.groups)) return undefined;
  if (t.dims.length !== p.dims.length) return undefined;
  const pnodes = parent.nodes;
  const pairs: [ArrayLike<number>, ArrayLike<number>][] = [];
  const cols = [
    'op',
    'block',
    'group',
    'p2pStream',
    'provPass',
    'provDirective',
    'alloc',
    'free',
    'bytes',
    'peer',
    'pass',
    'source',
    'stream',
  ] as const;
  for (const c of cols) if (t[c] !== p[c]) pairs.push([t[c], p[c]]);
  for (let d = 0; d < t.dims.length; d++) if (t.dims[d] !== p.dims[d]) pairs.push([t.dims[d]!, p.dims[d]!]);
  const sameNames = t.names === p.names;
  const maps = t.ids === p.ids && t.transfers === p.transfers && t.devices === p.devices;
  return (i) => {
    if (i >= p.length) return undefined;
    for (const [a, b] of pairs) if (a[i] !== b[i]) return undefined;
    if (!sameNames) {
      if (t.names[t.stream[i]!] !== p.names[p.stream[i]!]) return undefined;
      if (t.names[t.provPass[i]!] !== p.names[p.provPass[i]!]) return undefined;
      const ps = t.p2pStream[i]!;
      if (ps >= 0 && t.names[ps] !== p.names[p.p2pStream[i]!]) return undefined;
    }
    if (!maps) {
      if (t.ids.get(i) !== p.ids.get(i) || t.transfers.get(i) !== p.transfers.get(i)) return undefined;
      if (t.devices.get(i) !== p.devices.get(i)) return undefined;
    }
    return pnodes[i];
  };
}

function sameShape(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function nodeAt(dag: Dag, t: NodeTable, i: number, s: Shared): DagNode {
  const code = t.op[i]!;
  const id = nodeIdOf(dag, i);
  const block = t.block[i]!;
  const group = t.group[i]!;
  const stream = t.names[t.stream[i]!]!;
  const provenance = provenanceOf(s, t, i);
  switch (kindOfCode(code)) {
    case 'compute': {
      const ps = t.p2pStream[i]!;
      return computeNode({
        op: NODE_OPS[code] as ComputeOp,
        id,
        block,
        dims: dimsOf(s, t, i),
        group,
        stream,
        provenance,
        allocBytes: t.alloc[i]!,
        freeBytes: t.free[i]!,
        p2pStream: ps >= 0 ? t.names[ps] : undefined,
      });
    }
    case 'p2p':
      return p2pNode({
        op: NODE_OPS[code] as P2POp,
        id,
        block,
        dims: dimsOf(s, t, i),
        group,
        stream,
        provenance,
        peerGroup: t.peer[i]!,
        bytes: t.bytes[i]!,
        transfer: transferOf(dag, i),
        pass: NODE_OPS[t.pass[i]!] as ComputeOp,
      });
    case 'collective':
      return collectiveNode({
        op: NODE_OPS[code] as CollectiveOp,
        id,
        block,
        dims: dimsOf(s, t, i),
        group,
        stream,
        provenance,
        devices: t.devices.get(i) ?? dag.groups[group] ?? [],
        bytes: t.bytes[i]!,
      });
    case 'memory':
      return memoryNode({
        op: NODE_OPS[code] as MemoryOp,
        id,
        block,
        dims: dimsOf(s, t, i),
        group,
        stream,
        provenance,
        bytes: t.bytes[i]!,
      });
    case 'control':
      // Control nodes belong to no block and no split index: their dims are empty.
      return {
        kind: 'control',
        op: NODE_OPS[code] as 'ORDER_SINK',
        id,
        block,
        dims: NO_DIMS,
        group,
        stream,
        provenance,
      };
  }
}

// ---- rows from node objects ----

/** The table of a DAG given as node objects, keeping whatever the naming rule would not give. */
function fromNodes(dag: Dag): NodeTable {
  const nodes = dag.nodes;
  const n = nodes.length;
  const names: string[] = [];
  const nameOf = (s: string) => {
    let k = names.indexOf(s);
    if (k < 0) k = names.push(s) - 1;
    return k;
  };
  const t: OwnTable = newTable(n, dag.dims.length, names);
  const ids = new Map<number, string>();
  const transfers = new Map<number, string>();
  const devices = new Map<number, readonly number[]>();
  const byId = new Map<string, number>();
  for (let i = 0; i < n; i++) byId.set(nodes[i]!.id, i);
  for (let i = 0; i < n; i++) {
    const x = nodes[i]!;
    t.op[i] = opCode(x.op);
    t.block[i] = x.block;
    for (let d = 0; d < t.dims.length; d++) t.dims[d]![i] = x.dims[d] ?? -1;
    t.group[i] = x.group;
    t.stream[i] = nameOf(x.stream);
    t.provPass[i] = nameOf(x.provenance.pass);
    t.provDirective[i] = x.provenance.directive ?? -1;
    switch (x.kind) {
      case 'compute':
        t.alloc[i] = x.allocBytes;
        t.free[i] = x.freeBytes;
        if (x.p2pStream !== undefined) t.p2pStream[i] = nameOf(x.p2pStream);
        break;
      case 'p2p': {
        t.bytes[i] = x.bytes;
        t.peer[i] = x.peerGroup;
        t.pass[i] = Math.max(0, opCode(x.pass));
        // The producer: the node whose id starts the transfer's name, when one does.
        const cut = x.transfer.lastIndexOf('.d');
        t.source[i] = cut > 0 ? (byId.get(x.transfer.slice(0, cut)) ?? -1) : -1;
        transfers.set(i, x.transfer);
        break;
      }
      case 'collective':
        t.bytes[i] = x.bytes;
        devices.set(i, x.devices);
        break;
      case 'memory':
        t.bytes[i] = x.bytes;
        break;
      case 'control':
        break;
    }
  }
  t.transfers = transfers;
  t.devices = devices;
  // Keep only what the rule does not reproduce, so the table reads back the same nodes. The rule
  // names a SEND after its producer's id: the producers' own ids, whatever they are.
  const actual = nodes.map((x) => x.id);
  for (let i = 0; i < n; i++) {
    const x = nodes[i]!;
    if (x.kind === 'p2p' && t.source[i]! >= 0 && ruleTransfer(dag, t, i, (k) => actual[k]!) === x.transfer)
      transfers.delete(i);
    if (x.kind === 'collective' && sameList(x.devices, dag.groups[x.group])) devices.delete(i);
  }
  for (let i = 0; i < n; i++) if (ruleId(dag, t, i, actual) !== actual[i]) ids.set(i, actual[i]!);
  t.ids = ids;
  return t;
}

function sameList(a: readonly number[], b: readonly number[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((x, k) => x === b[k]);
}
