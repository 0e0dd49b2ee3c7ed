/**
 * A scripting handle on the root element, for tests, benchmarks and scripts: on canvas there is no
 * element per op to find, so they locate, hit-test and zoom through this instead.
 */
import type { GanttGeometry } from './geometry.ts';
import type { PanZoom } from './panZoom.ts';
import { timelinePng, timelineSvg } from './picture.ts';
import type { GanttLive } from './props.ts';

/** Scripting handle on the root element (`data-testid="gantt"`), as `element.stagecraftGantt`. */
export interface GanttHandle {
  /** Client rectangle of an op in the current view, or null when it is not in this plan. */
  locate(id: string): { x: number; y: number; width: number; height: number } | null;
  /** Instruction id of the op at client coordinates, or null. */
  opAt(clientX: number, clientY: number): string | null;
  /** Zoom so that [t0, t1] milliseconds fill the plot. */
  zoomTo(t0: number, t1: number): void;
  /**
   * Bring an op into view, centred, zooming in until the window spans at most 40 of its
   * durations (so that on canvas its hit-test element exists). False when it is not in this plan.
   */
  reveal(id: string): boolean;
  /** Visible time window. */
  window(): { t0: number; t1: number };
  /** The view on screen, every device, as an SVG document or a PNG (picture.ts): the export buttons' source. */
  picture(kind: 'svg'): string;
  picture(kind: 'png'): Promise<Blob>;
  render: 'svg' | 'canvas';
}

declare global {
  interface HTMLElement {
    stagecraftGantt?: GanttHandle;
  }
}

/** Puts the handle on `root`; returns its removal. */
export function attachHandle(
  root: HTMLElement,
  geometry: GanttGeometry,
  live: () => GanttLive,
  panZoom: PanZoom,
): () => void {
  root.stagecraftGantt = {
    locate(id) {
      const layout = live().layout;
      const o = layout.ops[layout.byId.get(id) ?? -1];
      if (!o) return null;
      const view = geometry.view();
      const at = geometry.origin();
      const x0 = view.x(o.ev.startMs);
      return { x: at.left + x0, y: at.top + o.y, width: Math.max(1, view.x(o.ev.endMs) - x0), height: o.h };
    },
    opAt(clientX, clientY) {
      return live().layout.ops[geometry.opIndex(clientX, clientY)]?.ev.id ?? null;
    },
    zoomTo: (t0, t1) => panZoom.zoomTo(t0, t1),
    reveal: (id) => panZoom.reveal(id),
    window() {
      const v = geometry.view();
      return { t0: v.t0, t1: v.t1 };
    },
    picture: ((kind: 'svg' | 'png') =>
      kind === 'svg'
        ? timelineSvg(live(), geometry.view())
        : timelinePng(live(), geometry.view())) as GanttHandle['picture'],
    get render() {
      return live().mode;
    },
  };
  return () => {
    delete root.stagecraftGantt;
  };
}
