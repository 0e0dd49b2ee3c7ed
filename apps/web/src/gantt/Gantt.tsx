/**
 * Per-device timelines of a simulated step. All gestures are resolved by hit-testing pointer
 * coordinates against the layout, so SVG and canvas rendering behave the same; zoom and pan go
 * through d3-zoom and, on canvas, redraw imperatively without a React render per frame.
 */
import type { Simulation, TimelineEvent } from '@stagecraft/sim';
import { select } from 'd3-selection';
import { type D3ZoomEvent, type ZoomBehavior, type ZoomTransform, zoom, zoomIdentity } from 'd3-zoom';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { OpMove } from '../core/reorder.ts';
import { afterPaint } from './afterPaint.ts';
import { paintAxis, paintGantt } from './canvasPaint.ts';
import { opColor } from './colors.ts';
import { FrameMeter } from './frameMeter.ts';
import { BubbleDetails, type DragMark, InsertMark } from './GanttMarks.tsx';
import { GanttSvg, PAN_MARGIN_VIEWS } from './GanttSvg.tsx';
import { bubbleAt, nearestInLane, opAt } from './hitTest.ts';
import { memberOp } from './label.ts';
import { AXIS_HEIGHT, GUTTER, layoutGantt, opsInWindow } from './layout.ts';
import { OpDetails } from './OpDetails.tsx';
import { indexPlan } from './planIndex.ts';
import type { TimelinePlan } from './timelinePlan.ts';
import { clampTranslate, type TimeView, timeView } from './view.ts';
import type { ViewSync } from './viewSync.ts';

/** HTML5 drag data type of a palette item; the data is the item's name (`split_backward`, `dualpipev`). */
export const PALETTE_DRAG_TYPE = 'application/x-stagecraft-palette';

/**
 * Above this many ops the timeline draws on a canvas instead of one SVG element per op: a p=8,
 * m=32 step (1,416 ops) renders in about 4 ms on canvas against about 30 ms as SVG, which matters
 * for the 100 ms budget from an edit to the new timeline.
 */
export const SVG_OP_LIMIT = 1200;
/** On canvas, hit-test elements (`data-op-id`) are laid over the visible ops up to this many. */
export const OVERLAY_OP_LIMIT = 2500;

export interface GanttProps {
  /** The simulated step; its `timeline` and `memory` are drawn (simulate with keepTimeline on). */
  sim: Simulation;
  /**
   * The compiled plan the simulation ran: streams, stages, provenance, SEND/RECV pairs. An outline
   * of it (planOutline) draws the same timeline, arrows included, without op details.
   */
  plan: TimelinePlan;
  /** Memory capacity of a device in bytes, drawn as a dashed line over its memory curve. */
  memoryCapacityBytes?: (device: number) => number | undefined;
  /** Bytes at the top of every memory strip (default: each device's own peak or capacity). */
  memoryScaleBytes?: number;
  /** Instruction id of the selected op (outlined). */
  selection?: string | null;
  /** The op under the pointer changed (null when it leaves every op). */
  onHover?(op: TimelineEvent | null): void;
  /** An op was clicked (null: the background was). */
  onSelect?(id: string | null): void;
  /** A palette item (HTML5 drag of type PALETTE_DRAG_TYPE) was dropped onto an op. */
  onDropPaletteItem?(item: string, op: TimelineEvent): void;
  /** An op was dragged before or after another; apply it with moveOp and pass back any refusal. */
  onReorder?(move: OpMove): void;
  /** Why the last reorder was refused: shown beside the lanes of the device it was tried on. */
  refusal?: string | null;
  /** Draw an arrow from every SEND to its RECV. */
  showArrows?: boolean;
  /** 'auto' (default) uses SVG up to SVG_OP_LIMIT ops and a canvas beyond. */
  render?: 'auto' | 'svg' | 'canvas';
  /** End of the time axis (default the makespan): several timelines share one axis with the same value. */
  domainMs?: number;
  /** Share zoom and pan with other timelines (see createViewSync). */
  viewSync?: ViewSync;
  /** Width in pixels (default: the element's width, followed as it resizes). */
  width?: number;
  /**
   * Collect frame times while zooming and panning in window.__stagecraftGanttFrames (frameMeter.ts).
   * Also on whenever that global exists, so a benchmark can switch it on from outside.
   */
  measureFrames?: boolean;
  /** Name of the expanded program's directive `index`, for provenance in the hover details. */
  directiveLabel?(index: number): string | undefined;
}

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
  render: 'svg' | 'canvas';
}

declare global {
  interface HTMLElement {
    stagecraftGantt?: GanttHandle;
  }
}

interface Press {
  index: number;
  x: number;
  y: number;
  dragging: boolean;
}

const MAX_ZOOM = 50_000;
/** Quiet time after a user's zoom or pan before the canvas's hit layer is rebuilt. */
const OVERLAY_SETTLE_MS = 150;
/** Pixels painted above and below what is in view, so a short scroll shows painted rows at once. */
const ROW_MARGIN = 200;

function measuring(props: GanttProps): boolean {
  return props.measureFrames === true || window.__stagecraftGanttFrames !== undefined;
}

export function Gantt(props: GanttProps) {
  const { sim, plan, memoryCapacityBytes } = props;
  const rootRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLDivElement>(null);
  const axisRef = useRef<HTMLCanvasElement>(null);
  const ghostRef = useRef<HTMLDivElement>(null);
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const capKey = plan.devices.map((d) => memoryCapacityBytes?.(d.device) ?? '').join(',');
  // The outline a result arrives with and the whole plan that follows it lay a simulation out
  // alike: with the same simulation, only other lanes lay it out again.
  const laneKey = plan.devices
    .map((d) => `${d.device}:${d.stages.join(',')}:${d.streams.map((s) => s.stream).join(',')}`)
    .join(';');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the plan counts by its lanes (laneKey) and capacities by value (capKey)
  const layout = useMemo(() => layoutGantt(sim, plan, { memoryCapacityBytes }), [sim, laneKey, capKey]);
  const planIndex = useMemo(() => indexPlan(plan), [plan]);
  const mode: 'svg' | 'canvas' =
    props.render === 'svg' || props.render === 'canvas'
      ? props.render
      : layout.ops.length > SVG_OP_LIMIT
        ? 'canvas'
        : 'svg';
  const domainMs = props.domainMs ?? sim.makespanMs;

  // Until the element's width is known nothing is drawn, so the first frame is not drawn twice.
  const [measured, setMeasured] = useState<number | null>(null);
  const width = props.width ?? measured ?? 960;
  const ready = props.width !== undefined || measured !== null;
  const [, setFrame] = useState(0);
  const [hover, setHover] = useState(-1);
  const [hoverBubble, setHoverBubble] = useState(-1);
  const [dropTarget, setDropTarget] = useState(-1);
  const [dragMark, setDragMark] = useState<DragMark | null>(null);
  const [moveDevice, setMoveDevice] = useState<number | null>(null);

  const transformRef = useRef<ZoomTransform>(zoomIdentity);
  const zoomRef = useRef<ZoomBehavior<HTMLDivElement, unknown> | null>(null);
  const meter = useRef(new FrameMeter());
  const pressRef = useRef<Press | null>(null);
  const suppressClick = useRef(false);
  const rafRef = useRef(0);

  // Everything the imperative handlers read, kept current without re-binding them.
  const live = useRef({ props, layout, planIndex, mode, domainMs, width, dropTarget, hover });
  live.current = { props, layout, planIndex, mode, domainMs, width, dropTarget, hover };

  const viewOf = (): TimeView => {
    const l = live.current;
    return timeView(l.domainMs, l.width, GUTTER, transformRef.current);
  };

  /** The SVG group that moves with time, and the transform it was last rendered at. */
  const panRef = useRef<SVGGElement>(null);
  const renderedAt = useRef<{ k: number; x: number; width: number }>({ k: 1, x: 0, width: 0 });

  /** Frame timestamp and start time of an SVG redraw, timed when React commits it. */
  const svgFrame = useRef<{ at: number; t0: number } | null>(null);

  /** The sticky copy of the axis, for when the lanes are scrolled under it. */
  const paintStickyAxis = () => {
    const canvas = axisRef.current;
    const ctx = canvas?.getContext('2d', { alpha: false });
    if (!canvas || !ctx) return;
    const l = live.current;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(l.width * dpr);
    const h = Math.round(AXIS_HEIGHT * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      canvas.style.width = `${l.width}px`;
      canvas.style.height = `${AXIS_HEIGHT}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paintAxis(ctx, viewOf());
  };

  /**
   * Content rows [y0, y1) in view (the root or the page may scroll), with a margin: the canvas is
   * only that tall, so a timeline of many devices costs no more per frame than the screen shows.
   */
  const visibleRows = (): [number, number] => {
    const root = rootRef.current;
    const h = live.current.layout.height;
    if (!root) return [0, h];
    const rect = root.getBoundingClientRect();
    const originTop = rect.top + root.clientTop - root.scrollTop;
    const top = Math.max(rect.top + root.clientTop, 0);
    const bottom = Math.min(rect.top + root.clientTop + (root.clientHeight || h), window.innerHeight || h);
    const y0 = Math.max(0, Math.floor(top - originTop - ROW_MARGIN));
    const y1 = Math.min(h, Math.ceil(bottom - originTop + ROW_MARGIN));
    return y1 > y0 ? [y0, y1] : [0, 0];
  };

  const paint = (frameTime = performance.now()) => {
    const l = live.current;
    if (l.mode !== 'canvas') return;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d', { alpha: false });
    if (!canvas || !ctx) return;
    const t0 = performance.now();
    const [y0, y1] = visibleRows();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(l.width * dpr);
    const h = Math.round((y1 - y0) * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      canvas.style.width = `${l.width}px`;
      canvas.style.height = `${y1 - y0}px`;
    }
    canvas.style.top = `${y0}px`;
    paintStickyAxis();
    if (h > 0) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, -y0 * dpr);
      paintGantt(ctx, l.layout, l.planIndex, viewOf(), {
        selection: l.props.selection ?? null,
        dropTarget: l.dropTarget,
        showArrows: l.props.showArrows ?? false,
        y0,
        y1,
      });
    }
    if (measuring(l.props)) meter.current.draw(performance.now() - t0, frameTime);
  };

  const redraw = () => {
    if (rafRef.current !== 0) return;
    rafRef.current = requestAnimationFrame((at) => {
      rafRef.current = 0;
      if (live.current.mode === 'canvas') paint(at);
      else if (!panSvg(at)) {
        svgFrame.current = { at, t0: performance.now() };
        // Render within this frame, not in a later scheduler task, so the pan keeps up with the pointer.
        flushSync(() => setFrame((f) => f + 1));
      }
    });
  };

  /**
   * A pan within the margin the SVG was rendered with only moves its time group: no render.
   * Returns false when a render is needed (zoom changed, or the pan went past the margin).
   */
  const panSvg = (frameTime: number): boolean => {
    const g = panRef.current;
    const r = renderedAt.current;
    const t = transformRef.current;
    const l = live.current;
    if (!g || t.k !== r.k || r.width !== l.width) return false;
    const dx = t.x - r.x;
    if (Math.abs(dx) > (l.width - GUTTER) * PAN_MARGIN_VIEWS * 0.9) return false;
    const t0 = performance.now();
    g.setAttribute('transform', `translate(${dx},0)`);
    paintStickyAxis();
    if (measuring(l.props)) meter.current.draw(performance.now() - t0, frameTime);
    return true;
  };

  /** Hit-test elements over the visible ops, so tests and scripts find canvas ops by data-op-id. */
  const rebuildOverlay = () => {
    const host = overlayRef.current;
    if (!host) return;
    const l = live.current;
    if (l.mode !== 'canvas') {
      host.replaceChildren();
      return;
    }
    const view = viewOf();
    const visible: number[] = [];
    for (const lane of l.layout.lanes) visible.push(...opsInWindow(l.layout, lane, view.t0, view.t1));
    host.dataset.visibleOps = String(visible.length);
    if (visible.length > OVERLAY_OP_LIMIT) {
      host.replaceChildren();
      return;
    }
    const nodes = visible.map((i) => {
      const o = l.layout.ops[i]!;
      const el = document.createElement('div');
      const x0 = Math.max(GUTTER, view.x(o.ev.startMs));
      const x1 = Math.min(view.width, view.x(o.ev.endMs));
      el.dataset.opId = o.ev.id;
      el.dataset.op = o.ev.op;
      el.style.cssText = `position:absolute;pointer-events:auto;left:${x0}px;top:${o.y}px;width:${Math.max(1, x1 - x0)}px;height:${o.h}px`;
      return el;
    });
    host.replaceChildren(...nodes);
  };

  /** Client position of the content's (0, 0): the root may scroll (a pane's `overflow: auto`). */
  const origin = (): { left: number; top: number } => {
    const root = rootRef.current;
    if (!root) return { left: 0, top: 0 };
    const rect = root.getBoundingClientRect();
    return {
      left: rect.left + root.clientLeft - root.scrollLeft,
      top: rect.top + root.clientTop - root.scrollTop,
    };
  };

  const hitIndex = (clientX: number, clientY: number): number => {
    if (!rootRef.current) return -1;
    const o = origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    const view = viewOf();
    const msPerPx = view.t(x + 1) - view.t(x) || 1;
    return opAt(live.current.layout, view.t(x), y, 2 * msPerPx);
  };

  // A render places everything at the current transform: the pan group starts from there again.
  useLayoutEffect(() => {
    panRef.current?.removeAttribute('transform');
    renderedAt.current = { k: transformRef.current.k, x: transformRef.current.x, width };
    if (live.current.mode === 'svg') paintStickyAxis();
    const f = svgFrame.current;
    if (!f) return;
    svgFrame.current = null;
    if (measuring(live.current.props)) meter.current.draw(performance.now() - f.t0, f.at);
  });

  /**
   * Where a dragged op lands: the op under the pointer or, released in a gap of a lane (a
   * bubble), the nearest op of that lane.
   */
  const dropIndex = (clientX: number, clientY: number): number => {
    const hit = hitIndex(clientX, clientY);
    if (hit >= 0) return hit;
    const o = origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    return nearestInLane(live.current.layout, viewOf().t(x), y);
  };

  /** The idle span (bubble) under a point of a compute lane, or -1. */
  const bubbleIndex = (clientX: number, clientY: number): number => {
    const o = origin();
    const x = clientX - o.left;
    const y = clientY - o.top;
    if (x < GUTTER) return -1;
    return bubbleAt(live.current.layout, viewOf().t(x), y);
  };

  // Follow the element's width.
  useLayoutEffect(() => {
    const root = rootRef.current;
    if (!root || props.width !== undefined) return;
    setMeasured(root.clientWidth > 0 ? root.clientWidth : 960);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (root.clientWidth > 0) setMeasured(root.clientWidth);
    });
    ro.observe(root);
    return () => ro.disconnect();
  }, [props.width]);

  // A new width moves the edges the pan is held within: constrain the current view again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the width changes
  useEffect(() => {
    const root = rootRef.current;
    if (root && zoomRef.current) zoomRef.current.transform(select(root), transformRef.current);
  }, [width]);

  // Zoom and pan.
  // biome-ignore lint/correctness/useExhaustiveDependencies: bound once per element and view sync; handlers read `live`
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const sel = select(root);
    // Set while applying another timeline's transform, so it is not published back.
    const applyingSync = { current: false };
    const isPanWheel = (e: WheelEvent) => e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
    // Pending rebuild of the hit layer, and whether the zoom under way comes from a pan wheel.
    let overlayTimer: ReturnType<typeof setTimeout> | undefined;
    let inWheel = false;
    const showOverlay = () => {
      overlayTimer = undefined;
      if (overlayRef.current) overlayRef.current.style.display = '';
      rebuildOverlay();
    };
    const z = zoom<HTMLDivElement, unknown>()
      .scaleExtent([1, MAX_ZOOM])
      .filter((e: Event) => {
        if (e.type === 'wheel') return !isPanWheel(e as WheelEvent);
        if (e.type === 'dblclick') return false;
        const m = e as MouseEvent;
        if (m.button || m.ctrlKey) return false;
        // A press on an op starts a reorder drag, not a pan.
        if (e.type === 'mousedown' && live.current.props.onReorder && hitIndex(m.clientX, m.clientY) >= 0)
          return false;
        return true;
      })
      .constrain((t) => {
        const w = live.current.width;
        const x = clampTranslate(t.k, t.x, w, GUTTER);
        return x === t.x && t.y === 0 ? t : zoomIdentity.translate(x, 0).scale(t.k);
      })
      .on('start', () => {
        if (measuring(live.current.props)) meter.current.start();
        clearTimeout(overlayTimer);
        overlayTimer = undefined;
        if (overlayRef.current) overlayRef.current.style.display = 'none';
      })
      .on('zoom', (e: D3ZoomEvent<HTMLDivElement, unknown>) => {
        const before = transformRef.current;
        // A pan against the edge of the step changes nothing: skip the redraw.
        if (before.k === e.transform.k && before.x === e.transform.x) return;
        transformRef.current = e.transform;
        if (!applyingSync.current) props.viewSync?.publish({ k: e.transform.k, x: e.transform.x }, root);
        redraw();
      })
      .on('end', (e: D3ZoomEvent<HTMLDivElement, unknown>) => {
        meter.current.end();
        // Re-centre the SVG's rendered margin on the settled view.
        if (live.current.mode === 'svg' && panRef.current?.hasAttribute('transform')) setFrame((f) => f + 1);
        // Rebuilding the hit layer (thousands of elements, and the layout they force) on every
        // wheel step, end of a drag or synced step cost the pan a frame each time: after user input it
        // waits until the gesture has settled; a scripted zoom (zoomTo, reveal) rebuilds at once.
        if (e.sourceEvent || inWheel || applyingSync.current) {
          clearTimeout(overlayTimer);
          overlayTimer = setTimeout(showOverlay, OVERLAY_SETTLE_MS);
        } else showOverlay();
      });
    zoomRef.current = z;
    sel.call(z).on('dblclick.zoom', null);
    const onWheel = (e: WheelEvent) => {
      if (!isPanWheel(e)) return;
      e.preventDefault();
      const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
      inWheel = true;
      try {
        z.translateBy(sel, -d / transformRef.current.k, 0);
      } finally {
        inWheel = false;
      }
    };
    root.addEventListener('wheel', onWheel, { passive: false });
    // Any scroll (the root's or an ancestor's) moves which rows the canvas must cover.
    const onScroll = () => {
      if (live.current.mode === 'canvas') redraw();
    };
    window.addEventListener('scroll', onScroll, { capture: true, passive: true });
    window.addEventListener('resize', onScroll);
    const unsubscribe = props.viewSync?.subscribe((t, from) => {
      if (from === root) return;
      applyingSync.current = true;
      z.transform(sel, zoomIdentity.translate(t.x, 0).scale(t.k));
      applyingSync.current = false;
    });
    if (props.viewSync) {
      const t = props.viewSync.current();
      applyingSync.current = true;
      z.transform(sel, zoomIdentity.translate(t.x, 0).scale(t.k));
      applyingSync.current = false;
    }
    root.stagecraftGantt = {
      locate(id) {
        const o = live.current.layout.ops[live.current.layout.byId.get(id) ?? -1];
        if (!o) return null;
        const view = viewOf();
        const at = origin();
        const x0 = view.x(o.ev.startMs);
        return {
          x: at.left + x0,
          y: at.top + o.y,
          width: Math.max(1, view.x(o.ev.endMs) - x0),
          height: o.h,
        };
      },
      opAt(clientX, clientY) {
        return live.current.layout.ops[hitIndex(clientX, clientY)]?.ev.id ?? null;
      },
      zoomTo(t0, t1) {
        const l = live.current;
        const span = Math.max(1, l.width - GUTTER - 8);
        const d = l.domainMs > 0 ? l.domainMs : 1;
        const k = Math.min(MAX_ZOOM, Math.max(1, d / Math.max(1e-9, t1 - t0)));
        const u0 = GUTTER + (t0 / d) * span;
        z.transform(sel, zoomIdentity.translate(GUTTER - u0 * k, 0).scale(k));
      },
      reveal(id) {
        const o = live.current.layout.ops[live.current.layout.byId.get(id) ?? -1];
        if (!o) return false;
        const v = viewOf();
        const dur = Math.max(o.ev.endMs - o.ev.startMs, live.current.domainMs / MAX_ZOOM);
        const span = Math.min(v.t1 - v.t0, 40 * dur);
        const mid = (o.ev.startMs + o.ev.endMs) / 2;
        const t0 = Math.max(0, Math.min(mid - span / 2, live.current.domainMs - span));
        this.zoomTo(t0, t0 + span);
        return true;
      },
      window() {
        const v = viewOf();
        return { t0: v.t0, t1: v.t1 };
      },
      get render() {
        return live.current.mode;
      },
    };
    return () => {
      sel.on('.zoom', null);
      root.removeEventListener('wheel', onWheel);
      window.removeEventListener('scroll', onScroll, { capture: true });
      window.removeEventListener('resize', onScroll);
      unsubscribe?.();
      meter.current.stop();
      clearTimeout(overlayTimer);
      if (rafRef.current !== 0) cancelAnimationFrame(rafRef.current);
      rafRef.current = 0;
      delete root.stagecraftGantt;
    };
  }, [props.viewSync]);

  // A new plan or width keeps the zoom but re-clamps it; the canvas repaints on every visual change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: paint reads `live`
  useEffect(() => {
    paint();
  }, [layout, width, ready, mode, props.selection, dropTarget, props.showArrows, domainMs]);

  // The hit layer is invisible and only follows where ops are: it is rebuilt after the frame that
  // shows a new layout, so that frame does not also create, style and lay out an element per op.
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuildOverlay reads `live`
  useEffect(() => afterPaint(rebuildOverlay), [layout, width, ready, mode, domainMs]);

  const startPress = (e: React.PointerEvent) => {
    if (e.button !== 0 || !props.onReorder) return;
    const index = hitIndex(e.clientX, e.clientY);
    if (index < 0) return;
    pressRef.current = { index, x: e.clientX, y: e.clientY, dragging: false };
    const move = (m: PointerEvent) => {
      const p = pressRef.current;
      if (!p) return;
      if (!p.dragging && Math.hypot(m.clientX - p.x, m.clientY - p.y) < 4) return;
      p.dragging = true;
      moveGhost(p.index, m.clientX, m.clientY);
      const target = dropIndex(m.clientX, m.clientY);
      const mark = target >= 0 && target !== p.index ? markFor(target, m.clientX) : null;
      setDragMark((old) => (old?.target === mark?.target && old?.position === mark?.position ? old : mark));
    };
    const up = (u: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      const p = pressRef.current;
      pressRef.current = null;
      setDragMark(null);
      if (ghostRef.current) ghostRef.current.style.display = 'none';
      if (!p?.dragging) return;
      suppressClick.current = true;
      const target = dropIndex(u.clientX, u.clientY);
      const l = live.current;
      const from = l.layout.ops[p.index];
      const to = l.layout.ops[target];
      if (!from || !to || target === p.index) return;
      setMoveDevice(from.ev.device);
      l.props.onReorder?.({
        op: from.ev.id,
        target: to.ev.id,
        position: markFor(target, u.clientX).position,
      });
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };

  /** The dragged op follows the pointer as a translucent copy; moved without a render. */
  const moveGhost = (index: number, clientX: number, clientY: number) => {
    const ghost = ghostRef.current;
    const o = live.current.layout.ops[index];
    if (!ghost || !o) return;
    const view = viewOf();
    const w = Math.max(6, view.x(o.ev.endMs) - view.x(o.ev.startMs));
    const at = origin();
    ghost.style.display = 'block';
    ghost.style.width = `${w}px`;
    ghost.style.height = `${o.h}px`;
    ghost.style.background = opColor(o.ev.members ? memberOp(o.ev.members[0]!) : o.ev.op, o.chunk);
    ghost.style.transform = `translate(${clientX - at.left - w / 2}px, ${clientY - at.top - o.h / 2}px)`;
  };

  const markFor = (target: number, clientX: number): DragMark => {
    const o = live.current.layout.ops[target]!;
    const view = viewOf();
    const mid = view.x((o.ev.startMs + o.ev.endMs) / 2) + origin().left;
    return { target, position: clientX < mid ? 'before' : 'after' };
  };

  const onPointerMove = (e: React.PointerEvent) => {
    if (pressRef.current) return;
    const index = hitIndex(e.clientX, e.clientY);
    const bubble = index < 0 ? bubbleIndex(e.clientX, e.clientY) : -1;
    if (bubble !== hoverBubble) setHoverBubble(bubble);
    if (index === live.current.hover) return;
    setHover(index);
    props.onHover?.(layout.ops[index]?.ev ?? null);
  };

  /** Keys: + and − zoom around the centre, ← and → pan, 0 shows the whole step, Escape unselects. */
  const onKeyDown = (e: React.KeyboardEvent) => {
    const z = zoomRef.current;
    const root = rootRef.current;
    if (!z || !root) return;
    const sel = select(root);
    const centre: [number, number] = [GUTTER + (width - GUTTER) / 2, 0];
    const step = (width - GUTTER) / 8 / transformRef.current.k;
    if (e.key === '+' || e.key === '=') z.scaleBy(sel, 1.5, centre);
    else if (e.key === '-' || e.key === '_') z.scaleBy(sel, 1 / 1.5, centre);
    else if (e.key === 'ArrowLeft') z.translateBy(sel, step, 0);
    else if (e.key === 'ArrowRight') z.translateBy(sel, -step, 0);
    else if (e.key === '0') z.transform(sel, zoomIdentity);
    else if (e.key === 'Escape') props.onSelect?.(null);
    else return;
    e.preventDefault();
  };

  const onPointerLeave = () => {
    setHoverBubble(-1);
    if (live.current.hover === -1) return;
    setHover(-1);
    props.onHover?.(null);
  };

  const onClick = (e: React.MouseEvent) => {
    if (suppressClick.current) {
      suppressClick.current = false;
      return;
    }
    const index = hitIndex(e.clientX, e.clientY);
    props.onSelect?.(layout.ops[index]?.ev.id ?? null);
  };

  const carriesPaletteItem = (e: React.DragEvent) =>
    Array.from(e.dataTransfer?.types ?? []).includes(PALETTE_DRAG_TYPE);

  const onDragOver = (e: React.DragEvent) => {
    if (!carriesPaletteItem(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    const index = hitIndex(e.clientX, e.clientY);
    if (index !== live.current.dropTarget) setDropTarget(index);
  };

  const onDragLeave = (e: React.DragEvent) => {
    const next = e.relatedTarget as Node | null;
    if (next && rootRef.current?.contains(next)) return;
    setDropTarget(-1);
  };

  const onDrop = (e: React.DragEvent) => {
    if (!carriesPaletteItem(e)) return;
    e.preventDefault();
    setDropTarget(-1);
    const item = e.dataTransfer.getData(PALETTE_DRAG_TYPE);
    const op = layout.ops[hitIndex(e.clientX, e.clientY)];
    if (item && op) props.onDropPaletteItem?.(item, op.ev);
  };

  const view = timeView(domainMs, width, GUTTER, transformRef.current);
  const hovered = layout.ops[hover];
  const refusalBand = layout.bands.find((b) => b.device === moveDevice) ?? layout.bands[0];
  return (
    <div
      ref={rootRef}
      data-testid="gantt"
      role="application"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a custom widget: the keyboard zooms and pans it
      tabIndex={0}
      aria-label="timelines of every device: + and − zoom, arrow keys pan, 0 shows the whole step"
      data-render={mode}
      data-ops={layout.ops.length}
      data-makespan-ms={sim.makespanMs}
      className="stagecraft-gantt"
      style={{
        position: 'relative',
        width: props.width ?? '100%',
        height: layout.height,
        userSelect: 'none',
        cursor: dragMark ? 'grabbing' : 'default',
        touchAction: 'none',
      }}
      onPointerDown={startPress}
      onPointerMove={onPointerMove}
      onPointerLeave={onPointerLeave}
      onClick={onClick}
      onKeyDown={onKeyDown}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={onDrop}
    >
      {sim.timeline === undefined && (
        <p style={{ position: 'absolute', left: GUTTER, top: 24, margin: 0 }}>
          No timeline in this simulation.
        </p>
      )}
      <div
        aria-hidden="true"
        style={{
          position: 'sticky',
          top: 0,
          height: AXIS_HEIGHT,
          marginBottom: -AXIS_HEIGHT,
          zIndex: 1,
          pointerEvents: 'none',
        }}
      >
        {ready && <canvas ref={axisRef} style={{ display: 'block' }} />}
      </div>
      {!ready ? null : mode === 'svg' ? (
        <GanttSvg
          layout={layout}
          plan={planIndex}
          view={view}
          selection={props.selection ?? null}
          dropTarget={dropTarget}
          showArrows={props.showArrows ?? false}
          uid={uid}
          panRef={panRef}
        />
      ) : (
        <>
          {/* The canvas covers only the rows in view; this keeps the full height scrollable. */}
          <div style={{ height: layout.height }} />
          <canvas ref={canvasRef} style={{ display: 'block', position: 'absolute', left: 0, top: 0 }} />
        </>
      )}
      <div
        ref={overlayRef}
        data-testid="gantt-hit-layer"
        // Contained, its thousand elements are painted apart from the page's changes. It spans the
        // whole content, not the scrolled box: containment clips what lies outside it.
        style={{
          position: 'absolute',
          left: 0,
          top: 0,
          right: 0,
          height: layout.height,
          pointerEvents: 'none',
          contain: 'strict',
        }}
      />
      <div
        ref={ghostRef}
        data-testid="gantt-drag-ghost"
        style={{
          display: 'none',
          position: 'absolute',
          left: 0,
          top: 0,
          opacity: 0.6,
          outline: '1px solid #212529',
          pointerEvents: 'none',
          zIndex: 2,
        }}
      />
      {dragMark && <InsertMark layout={layout} view={view} mark={dragMark} />}
      {!hovered && !dragMark && layout.bubbles[hoverBubble] && (
        <BubbleDetails layout={layout} view={view} index={hoverBubble} />
      )}
      {hovered && !dragMark && (
        <OpDetails
          op={hovered.ev}
          plan={planIndex}
          view={view}
          layout={layout}
          directiveLabel={props.directiveLabel}
          visibleBottom={
            rootRef.current && rootRef.current.clientHeight > 0
              ? rootRef.current.scrollTop + rootRef.current.clientHeight
              : undefined
          }
        />
      )}
      {props.refusal && refusalBand && (
        <div
          role="alert"
          data-testid="gantt-refusal"
          style={{
            position: 'absolute',
            left: GUTTER + 8,
            top: refusalBand.top,
            maxWidth: Math.max(240, width - GUTTER - 24),
            padding: '4px 8px',
            background: '#fff5f5',
            border: '1px solid #ffa8a8',
            borderRadius: 4,
            color: '#c92a2a',
            font: '12px system-ui, sans-serif',
            pointerEvents: 'none',
          }}
        >
          {props.refusal}
        </div>
      )}
    </div>
  );
}
