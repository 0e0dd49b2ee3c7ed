/**
 * Arrow keys on the DAG canvas: the canvas is one tab stop and the arrows move the active node,
 * so a keyboard user crosses a DAG of hundreds of nodes in one Tab instead of one per node.
 * Left and right follow the node's row (by x), up and down go to the nearest node of the row
 * above or below, Enter expands or collapses the stage of the active node. Pure, on the graph's
 * positions, so it is tested without a browser.
 */
import type { GraphLane, GraphNode, GraphRow } from './dagGraph.ts';

export type ArrowKey = 'ArrowLeft' | 'ArrowRight' | 'ArrowUp' | 'ArrowDown';

export function isArrowKey(key: string): key is ArrowKey {
  return key === 'ArrowLeft' || key === 'ArrowRight' || key === 'ArrowUp' || key === 'ArrowDown';
}

/**
 * The node an arrow key moves to from `current` (by id): the first node (top row, leftmost) when
 * nothing is active or the active node is gone, `current` itself at an edge of the graph.
 */
export function nodeAfterKey(
  nodes: readonly GraphNode[],
  current: string | null,
  key: ArrowKey,
): GraphNode | undefined {
  if (nodes.length === 0) return undefined;
  const at = activeNode(nodes, current);
  if (!at) return [...nodes].sort((a, b) => a.y - b.y || a.x - b.x)[0];
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const row = nodes.filter((n) => n.y === at.y).sort((a, b) => a.x - b.x);
    const i = row.indexOf(at);
    return row[key === 'ArrowLeft' ? Math.max(0, i - 1) : Math.min(row.length - 1, i + 1)];
  }
  const ys = [...new Set(nodes.map((n) => n.y))].sort((a, b) => a - b);
  const r = ys.indexOf(at.y) + (key === 'ArrowUp' ? -1 : 1);
  if (r < 0 || r >= ys.length) return at;
  const row = nodes.filter((n) => n.y === ys[r]);
  return row.reduce((best, n) => (Math.abs(n.x - at.x) < Math.abs(best.x - at.x) ? n : best));
}

/** The stage row a node is drawn in (what Enter on it expands or collapses). */
export function rowOfNode(lanes: readonly GraphLane[], node: GraphNode): GraphRow | undefined {
  for (const lane of lanes)
    for (const row of lane.rows) if (node.y >= row.y && node.y < row.y + row.height) return row;
  return undefined;
}

/** The node the canvas's selection (an op id, possibly a collapsed node's first member) stands on. */
export function activeNode(nodes: readonly GraphNode[], id: string | null): GraphNode | undefined {
  return id === null ? undefined : nodes.find((n) => n.id === id || n.data.firstId === id);
}
