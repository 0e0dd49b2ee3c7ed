/**
 * Where the DAG canvas opens, and opens again whenever the graph's shape or the pane's size
 * changes, and how large its labels are drawn. A graph whose every column fits the pane is shown
 * whole across: a builder switch, a timeline move or an expanded stage that adds columns (the UPD
 * column last) keeps them all in view. At MIN_FIT_ZOOM or more its labels show at LABEL_PX (they
 * grow in graph units below full size); a graph wider than that is fitted lower, down to
 * FIT_FLOOR, as an outline whose labels show on hover and once zoomed in (labelsReadable). Only a
 * graph too wide even for FIT_FLOOR (hundreds of columns) opens at MIN_FIT_ZOOM from its start.
 */

/** Screen size in pixels node labels keep down to MIN_FIT_ZOOM (12 px text at full size). */
export const LABEL_PX = 9;
/**
 * Node labels grow at most this much: one line of 12 px × 1.8 text at 1.2 line height is the 26
 * units inside a node's borders (30 − 2 × 2: dagGraph.ts NODE_H, styles.css .dag-node).
 */
const MAX_LABEL_SCALE = 1.8;
/** Lowest zoom at which node labels still show at LABEL_PX (0.42). */
export const MIN_FIT_ZOOM = LABEL_PX / (12 * MAX_LABEL_SCALE);
/**
 * Lowest zoom a graph is fitted at: a 118-unit node is 12 px wide there, still a mark to point at
 * and hover; below it the outline says nothing, and the graph opens readable from its start.
 */
export const FIT_FLOOR = 0.1;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Screen pixels along the pane's top and left that its own tools cover (the op counter, the zoom
 * buttons): the graph is fitted beside them, so they never lie over a label.
 */
export interface Reserved {
  top: number;
  left: number;
}

const NOTHING_RESERVED: Reserved = { top: 0, left: 0 };

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export function dagViewport(
  graph: Box,
  pane: { width: number; height: number },
  padding = 16,
  reserved: Reserved = NOTHING_RESERVED,
): Viewport {
  const room = {
    width: Math.max(1, pane.width - 2 * padding - reserved.left),
    height: Math.max(1, pane.height - 2 * padding - reserved.top),
  };
  const across = room.width / Math.max(1, graph.width);
  const whole = Math.min(across, room.height / Math.max(1, graph.height));
  // Whole when readable; else every column (from the top when too tall); else readable from the start.
  const zoom =
    across >= FIT_FLOOR ? Math.min(1, Math.max(whole, Math.min(across, MIN_FIT_ZOOM))) : MIN_FIT_ZOOM;
  const w = graph.width * zoom;
  const h = graph.height * zoom;
  // Centred along an axis that fits; from the start along one that does not.
  const x =
    reserved.left +
    (w <= room.width + 1e-6 ? (pane.width - reserved.left - w) / 2 : padding) -
    graph.x * zoom;
  const y =
    reserved.top +
    (h <= room.height + 1e-6 ? (pane.height - reserved.top - h) / 2 : padding) -
    graph.y * zoom;
  return { x, y, zoom };
}

/** Factor on the labels' font size at a zoom, so 12 px text shows at LABEL_PX or more. */
export function labelScale(zoom: number): number {
  return Math.min(MAX_LABEL_SCALE, Math.max(1, LABEL_PX / (12 * Math.max(zoom, 1e-3))));
}

/** Whether labels show at this zoom: only where they reach LABEL_PX on screen (else on hover). */
export function labelsReadable(zoom: number): boolean {
  return 12 * labelScale(zoom) * zoom >= LABEL_PX - 1e-6;
}
