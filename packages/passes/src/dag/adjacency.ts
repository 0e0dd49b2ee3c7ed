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
  return build(n, edges.from, edges.from.length, arrays);
}

export function inEdges(n: number, edges: EdgeList, arrays: ArraySource = FRESH): Adjacency {
  return build(n, edges.to, edges.to.length, arrays);
}

function build(n: number, key: ArrayLike<number>, m: number, arrays: ArraySource): Adjacency {
  const offset = arrays.int32(n + 1);
  for (let j = 0; j < m; j++) offset[key[j]! + 1]!++;
  for (let i = 0; i < n; i++) offset[i + 1]! += offset[i]!;
  const fill = arrays.int32(n);
  fill.set(offset.subarray(0, n));
  const edge = arrays.int32(m);
  for (let j = 0; j < m; j++) edge[fill[key[j]!]!++] = j;
  return { offset, edge };
}

/** Predecessor nodes of each node, CSR: `node[offset[i]] .. node[offset[i+1]-1]`, in edge order. */
export interface Predecessors {
  readonly offset: Int32Array;
  readonly node: Int32Array;
}

export function predecessors(n: number, edges: EdgeList, arrays: ArraySource = FRESH): Predecessors {
  const { from, to } = edges;
  const m = to.length;
  const offset = arrays.int32(n + 1);
  for (let j = 0; j < m; j++) offset[to[j]! + 1]!++;
  for (let i = 0; i < n; i++) offset[i + 1]! += offset[i]!;
  const fill = arrays.int32(n);
  fill.set(offset.subarray(0, n));
  const node = arrays.int32(m);
  for (let j = 0; j < m; j++) node[fill[to[j]!]!++] = from[j]!;
  return { offset, node };
}
