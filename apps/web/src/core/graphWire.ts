/**
 * A laid-out DAG as the worker posts it: the edges as columns of node indices in typed arrays,
 * moved to the page rather than copied. DeepSeek-V3's graph has 13k edges of three strings each,
 * and the page read them in the same task as the nodes (90–200 ms on this machine); the page
 * makes the edge objects again from the node ids it already has.
 */
import type { DagGraph, GraphEdge } from './dagGraph.ts';

export interface PostedGraph extends Omit<DagGraph, 'edges'> {
  edgeColumns: {
    /** Index into `nodes` of each edge's source and target. */
    source: Int32Array;
    target: Int32Array;
    /** 1 for a temporal edge, 0 for a data edge. */
    temporal: Uint8Array;
    count: Int32Array;
  };
}

/** The graph for postMessage, with the buffers to transfer. */
export function packGraph(graph: DagGraph): { posted: PostedGraph; transfer: ArrayBuffer[] } {
  const indexOf = new Map<string, number>();
  for (let i = 0; i < graph.nodes.length; i++) indexOf.set(graph.nodes[i]!.id, i);
  const n = graph.edges.length;
  const source = new Int32Array(n);
  const target = new Int32Array(n);
  const temporal = new Uint8Array(n);
  const count = new Int32Array(n);
  for (let e = 0; e < n; e++) {
    const edge = graph.edges[e]!;
    const s = indexOf.get(edge.source);
    const t = indexOf.get(edge.target);
    if (s === undefined || t === undefined)
      throw new Error(`edge ${edge.id} joins a node the graph does not draw`);
    source[e] = s;
    target[e] = t;
    temporal[e] = edge.kind === 'temporal' ? 1 : 0;
    count[e] = edge.count;
  }
  const { edges: _edges, ...rest } = graph;
  return {
    posted: { ...rest, edgeColumns: { source, target, temporal, count } },
    transfer: [source.buffer, target.buffer, temporal.buffer, count.buffer],
  };
}

/** The graph as the page draws it; edges named as dagGraph.ts names them. */
export function unpackGraph(posted: PostedGraph): DagGraph {
  const { edgeColumns: c, ...rest } = posted;
  const edges: GraphEdge[] = new Array(c.source.length);
  for (let e = 0; e < c.source.length; e++) {
    const source = posted.nodes[c.source[e]!]!.id;
    const target = posted.nodes[c.target[e]!]!.id;
    const kind = c.temporal[e] === 1 ? 'temporal' : 'data';
    edges[e] = { id: `${kind}:${source}->${target}`, source, target, kind, count: c.count[e]! };
  }
  return { ...rest, edges };
}
