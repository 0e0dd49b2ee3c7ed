/**
 * The timeline's framework-free controllers, built once per element: they share one geometry and
 * read the latest render through `live`, and reach React only through the callbacks given here.
 */
import type { OpMove } from '../core/reorder.ts';
import type { DragMark } from './GanttMarks.tsx';
import { GanttGeometry } from './geometry.ts';
import { HitLayer } from './hitLayer.ts';
import { GanttPainter } from './painter.ts';
import { PaletteDrop } from './paletteDrop.ts';
import { PanZoom } from './panZoom.ts';
import type { GanttLive } from './props.ts';
import { RangeSelect } from './rangeSelect.ts';
import { ReorderDrag } from './reorderDrag.ts';
import { attachHandle } from './testHandle.ts';
import type { ViewSync } from './viewSync.ts';

/** An element the component renders, filled in by React as a ref. */
interface Slot<T> {
  current: T | null;
}

export interface GanttElements {
  root: Slot<HTMLDivElement>;
  canvas: Slot<HTMLCanvasElement>;
  axis: Slot<HTMLCanvasElement>;
  panGroup: Slot<SVGGElement>;
  hitLayer: Slot<HTMLDivElement>;
  ghost: Slot<HTMLDivElement>;
  range: Slot<HTMLDivElement>;
}

export interface GanttCallbacks {
  /** Render now, within this frame (SVG is drawn by React, and a pan must keep up with the pointer). */
  renderNow(): void;
  /** Render again in due course. */
  render(): void;
  dragMark(mark: DragMark | null): void;
  dropTarget(index: number): void;
  moved(move: OpMove, device: number): void;
  /** A time range was marked on the axis (null: cleared). */
  range(range: [number, number] | null): void;
}

export function createControllers(live: () => GanttLive, on: GanttCallbacks) {
  const el: GanttElements = {
    root: { current: null },
    canvas: { current: null },
    axis: { current: null },
    panGroup: { current: null },
    hitLayer: { current: null },
    ghost: { current: null },
    range: { current: null },
  };
  const geometry = new GanttGeometry(() => el.root.current, live);
  const range = new RangeSelect(geometry, live, () => el.range.current, on.range);
  const painter = new GanttPainter(
    geometry,
    live,
    {
      root: () => el.root.current,
      canvas: () => el.canvas.current,
      axis: () => el.axis.current,
      panGroup: () => el.panGroup.current,
    },
    on.renderNow,
    () => range.place(),
  );
  const hitLayer = new HitLayer(() => el.hitLayer.current, geometry, live);
  const panZoom = new PanZoom(geometry, live, painter, hitLayer, on.render);
  const drag = new ReorderDrag(geometry, live, () => el.ghost.current, {
    mark: on.dragMark,
    moved: on.moved,
  });
  const paletteDrop = new PaletteDrop(geometry, live, on.dropTarget);
  /** Binds zoom, pan and the scripting handle to the rendered root; returns the unbinding. */
  const attach = (viewSync: ViewSync | undefined): (() => void) | undefined => {
    const root = el.root.current;
    if (!root) return undefined;
    const detachZoom = panZoom.attach(root, viewSync);
    const detachHandle = attachHandle(root, geometry, live, panZoom);
    return () => {
      detachZoom();
      detachHandle();
    };
  };
  return { el, geometry, painter, hitLayer, panZoom, drag, paletteDrop, range, attach };
}
