/**
 * Compressed adjacency (CSR) over a DAG's edge columns, built in two linear sweeps. `arrays`: where
 * its arrays come from (a pass's scratch when the adjacency does not outlive the pass).
 */
import { type ArraySource, type EdgeList, FRESH } from '@stagecraft/ir';

export interface Adjacency {
  /** Edges of node i are `edge[offset[i]] .. edge[offset[i+1]-1]` (edge indices into the EdgeList). */
  readonly offset: Int32Array;
  readonly edge: Int32Array;
}

export function outEdges(n: number, edges: EdgeList, arrays: ArraySource = FRESH): Adjacency {
  const { offset, entry } = build(n, edges.from, null, arrays);
  return { offset, edge: entry };
}

export function inEdges(n: number, edges: EdgeList, arrays: ArraySource = FRESH): Adjacency {
  const { offset, entry } = build(n, edges.to, null, arrays);
  return { offset, edge: entry };
}

/** Predecessor nodes of each node, CSR: `node[offset[i]] .. node[offset[i+1]-1]`, in edge order. */
export interface Predecessors {
  readonly offset: Int32Array;
  readonly node: Int32Array;
}

export function predecessors(n: number, edges: EdgeList, arrays: ArraySource = FRESH): Predecessors {
  const { offset, entry } = build(n, edges.to, edges.from, arrays);
  return { offset, node: entry };
}

/** Edges grouped by `key` (their source or target): each one's `value` (its index when null). */
function build(
  n: number,
  key: ArrayLike<number>,
  value: ArrayLike<number> | null,
  arrays: ArraySource,
): { offset: Int32Array; entry: Int32Array } {
  const m = key.length;
  const offset = arrays.int32(n + 1);
  for (let j = 0; j < m; j++) offset[key[j]! + 1]!++;
  for (let i = 0; i < n; i++) offset[i + 1]! += offset[i]!;
  const fill = arrays.int32(n);
  fill.set(offset.subarray(0, n));
  const entry = arrays.int32(m);
  if (value === null) for (let j = 0; j < m; j++) entry[fill[key[j]!]!++] = j;
  else for (let j = 0; j < m; j++) entry[fill[key[j]!]!++] = value[j]!;
  return { offset, entry };
}
