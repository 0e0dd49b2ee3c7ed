/**
 * Which of a big DAG's edges and nodes the canvas is handed: React Flow indexes every edge and
 * node it is given on each update (about 0.5 s for DeepSeek-V3's 12,438 edges; its 3,554 nodes
 * took a tenth of a second more), even those it will not draw. Above a budget it is given the
 * edges that touch the part of the graph in view, with a margin, and the nodes near the view or at
 * an end of those edges, taken again when a pan or zoom settles; a graph within the budget keeps
 * all of its edges and nodes.
 */
import type { GraphEdge, GraphNode } from './dagGraph.ts';

/** Edges handed over whole up to this many. */
export const EDGE_BUDGET = 2500;

/** A rectangle in graph coordinates. */
export interface GraphRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The graph rectangle a pane of `width` × `height` shows under a viewport. */
export function rectInView(
  viewport: { x: number; y: number; zoom: number },
  width: number,
  height: number,
): GraphRect {
  return {
    x: -viewport.x / viewport.zoom,
    y: -viewport.y / viewport.zoom,
    width: width / viewport.zoom,
    height: height / viewport.zoom,
  };
}

export function edgesInView(
  edges: readonly GraphEdge[],
  nodes: readonly GraphNode[],
  view: GraphRect | null,
  budget = EDGE_BUDGET,
): readonly GraphEdge[] {
  if (edges.length <= budget || view === null) return edges.length <= budget ? edges : [];
  const near = nearView(nodes, view);
  return edges.filter((e) => near.has(e.source) || near.has(e.target));
}

/** Ids of the nodes in view, with half a view's margin on every side (so a short pan finds them). */
function nearView(nodes: readonly GraphNode[], view: GraphRect): Set<string> {
  const mx = view.width / 2;
  const my = view.height / 2;
  const x0 = view.x - mx;
  const x1 = view.x + view.width + mx;
  const y0 = view.y - my;
  const y1 = view.y + view.height + my;
  const near = new Set<string>();
  for (const n of nodes) if (n.x >= x0 && n.x <= x1 && n.y >= y0 && n.y <= y1) near.add(n.id);
  return near;
}

/**
 * The nodes to hand over with `shownEdges` (what edgesInView gave): every node of a graph within
 * the edge budget, else those near the view and those at an end of a shown edge (React Flow draws
 * an edge only between nodes it was given).
 */
export function nodesInView(
  nodes: readonly GraphNode[],
  edgeCount: number,
  shownEdges: readonly GraphEdge[],
  view: GraphRect | null,
  budget = EDGE_BUDGET,
): readonly GraphNode[] {
  if (edgeCount <= budget) return nodes;
  if (view === null) return [];
  const keep = nearView(nodes, view);
  for (const e of shownEdges) {
    keep.add(e.source);
    keep.add(e.target);
  }
  return nodes.filter((n) => keep.has(n.id));
}
