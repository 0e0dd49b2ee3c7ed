/**
 * Which of a big DAG's edges the canvas is handed: React Flow indexes every edge it is given on
 * each update (about 0.5 s for DeepSeek-V3's 12,438), even those it will not draw. Above a budget
 * it is given the edges that touch the part of the graph in view, with a margin, taken again when
 * a pan or zoom settles; a graph within the budget keeps all of its edges.
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
  // Half a view's margin on every side, so a short pan finds its edges drawn.
  const mx = view.width / 2;
  const my = view.height / 2;
  const x0 = view.x - mx;
  const x1 = view.x + view.width + mx;
  const y0 = view.y - my;
  const y1 = view.y + view.height + my;
  const near = new Set<string>();
  for (const n of nodes) if (n.x >= x0 && n.x <= x1 && n.y >= y0 && n.y <= y1) near.add(n.id);
  return edges.filter((e) => near.has(e.source) || near.has(e.target));
}
