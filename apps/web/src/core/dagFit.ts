/**
 * Where the DAG canvas opens, and opens again whenever the graph's shape or the pane's size
 * changes, and how large its labels are drawn: a graph fitted at 0.43 drew 5 px labels, and one not
 * fitted again after an edit hid the new UPD column off the pane. The whole graph is shown when it
 * fits at MIN_FIT_ZOOM or more (else that zoom from the graph's start), and below full size the
 * labels grow in graph units so that on screen they stay at LABEL_PX.
 */

/** Lowest zoom the canvas opens at; a larger graph opens at its first columns and lanes. */
export const MIN_FIT_ZOOM = 0.47;
/** Screen size in pixels node labels keep down to MIN_FIT_ZOOM (12 px text at full size). */
export const LABEL_PX = 9;
/** Node labels grow at most this much: beyond it they no longer fit their nodes. */
const MAX_LABEL_SCALE = 1.6;

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
  const fit = Math.min(room.width / Math.max(1, graph.width), room.height / Math.max(1, graph.height));
  const zoom = Math.min(1, Math.max(MIN_FIT_ZOOM, fit));
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
