/**
 * Where things are on screen: the time view under the current zoom, and client coordinates turned
 * into content coordinates and ops. Every gesture hit-tests through here against the layout, so
 * SVG and canvas behave the same; the controllers share one instance.
 */
import { type ZoomTransform, zoomIdentity } from 'd3-zoom';
import { bubbleAt, nearestInLane, opAt } from './hitTest.ts';
import { AXIS_HEIGHT, type DeviceBand, GUTTER } from './layout.ts';
import type { GanttLive } from './props.ts';
import { type TimeView, timeView } from './view.ts';

export class GanttGeometry {
  /** The zoom and pan in effect (written by PanZoom, read by everything that draws or hit-tests). */
  transform: ZoomTransform = zoomIdentity;

  constructor(
    private readonly root: () => HTMLElement | null,
    private readonly live: () => GanttLive,
  ) {}

  view(): TimeView {
    const l = this.live();
    return timeView(l.domainMs, l.width, GUTTER, this.transform);
  }

  /** Client position of the content's (0, 0): the root may scroll (a pane's `overflow: auto`). */
  origin(): { left: number; top: number } {
    const root = this.root();
    if (!root) return { left: 0, top: 0 };
    const rect = root.getBoundingClientRect();
    return {
      left: rect.left + root.clientLeft - root.scrollLeft,
      top: rect.top + root.clientTop - root.scrollTop,
    };
  }

  /** Whether a point is on the time axis row (it stays at the top while the lanes scroll). */
  inAxis(clientX: number, clientY: number): boolean {
    const root = this.root();
    if (!root) return false;
    const rect = root.getBoundingClientRect();
    const top = rect.top + root.clientTop;
    return clientX - rect.left >= GUTTER && clientY >= top && clientY < top + AXIS_HEIGHT;
  }

  /** The op at client coordinates, or -1. */
  opIndex(clientX: number, clientY: number): number {
    if (!this.root()) return -1;
    const o = this.origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    const view = this.view();
    const msPerPx = view.t(x + 1) - view.t(x) || 1;
    return opAt(this.live().layout, view.t(x), y, 2 * msPerPx);
  }

  /**
   * Where a dragged op lands: the op under the pointer or, released in a gap of a lane (a
   * bubble), the nearest op of that lane.
   */
  dropIndex(clientX: number, clientY: number): number {
    const hit = this.opIndex(clientX, clientY);
    if (hit >= 0) return hit;
    const o = this.origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    return nearestInLane(this.live().layout, this.view().t(x), y);
  }

  /** The device band whose gutter is under a point, or undefined (the plot, the axis, between bands). */
  gutterBand(clientX: number, clientY: number): DeviceBand | undefined {
    const root = this.root();
    if (!root) return undefined;
    const top = root.getBoundingClientRect().top + root.clientTop;
    // The sticky axis row lies over the first band when scrolled.
    if (clientY < top + AXIS_HEIGHT) return undefined;
    const o = this.origin();
    const y = clientY - o.top;
    if (clientX - o.left >= GUTTER) return undefined;
    return this.live().layout.bands.find((b) => y >= b.top && y < b.bottom);
  }

  /** The idle span (bubble) under a point of a compute lane, or -1. */
  bubbleIndex(clientX: number, clientY: number): number {
    const o = this.origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    return bubbleAt(this.live().layout, this.view().t(x), y);
  }
}
