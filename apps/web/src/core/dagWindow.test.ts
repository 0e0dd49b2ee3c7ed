import { describe, expect, it } from 'vitest';
import type { GraphEdge, GraphNode } from './dagGraph.ts';
import { edgesInView, nodesInView, rectInView } from './dagWindow.ts';

function grid(n: number): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `n${i}`, x: i * 100, y: 0, data: {} as GraphNode['data'] });
    if (i > 0) edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}`, kind: 'data', count: 1 });
  }
  return { nodes, edges };
}

describe('the edges a big DAG hands the canvas', () => {
  it('a graph within the budget keeps every edge, in view or not', () => {
    const { nodes, edges } = grid(50);
    expect(edgesInView(edges, nodes, { x: 0, y: 0, width: 10, height: 10 }, 100)).toBe(edges);
  });

  it('a graph over the budget hands over only the edges near the view', () => {
    const { nodes, edges } = grid(1000);
    // The view shows x in [10 000, 11 000): nodes 100..110, and half a view's margin each side.
    const shown = edgesInView(edges, nodes, { x: 10_000, y: -50, width: 1000, height: 100 }, 100);
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length).toBeLessThan(40);
    const ids = new Set(shown.map((e) => e.id));
    for (let i = 101; i <= 110; i++) expect(ids.has(`e${i}`)).toBe(true);
    expect(ids.has('e1')).toBe(false);
  });

  it('a graph over the budget hands over the nodes near the view and the far ends of its shown edges', () => {
    const { nodes, edges } = grid(1000);
    edges.push({ id: 'far', source: 'n105', target: 'n900', kind: 'temporal', count: 1 });
    const view = { x: 10_000, y: -50, width: 1000, height: 100 };
    const shownEdges = edgesInView(edges, nodes, view, 100);
    const shown = nodesInView(nodes, edges.length, shownEdges, view, 100).map((n) => n.id);
    expect(shown).toContain('n105');
    expect(shown).toContain('n900');
    expect(shown).not.toContain('n1');
    const ids = new Set(shown);
    for (const e of shownEdges) expect(ids.has(e.source) && ids.has(e.target)).toBe(true);
  });

  it('a graph within the budget hands over every node', () => {
    const { nodes, edges } = grid(50);
    expect(nodesInView(nodes, edges.length, edges, { x: 0, y: 0, width: 10, height: 10 }, 100)).toBe(nodes);
  });

  it('the view of a viewport is the graph rectangle under the pane', () => {
    expect(rectInView({ x: -200, y: 100, zoom: 0.5 }, 800, 400)).toEqual({
      x: 400,
      y: -200,
      width: 1600,
      height: 800,
    });
  });
});
