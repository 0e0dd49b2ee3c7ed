/**
 * Per-device timelines of a simulated step. All gestures are resolved by hit-testing pointer
 * coordinates against the layout, so SVG and canvas rendering behave the same; zoom and pan go
 * through d3-zoom and, on canvas, redraw imperatively without a React render per frame.
 */
import type { Plan } from '@stagecraft/ir';
import type { Simulation, TimelineEvent } from '@stagecraft/sim';
import { select } from 'd3-selection';
import { type D3ZoomEvent, type ZoomBehavior, type ZoomTransform, zoom, zoomIdentity } from 'd3-zoom';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { paintGantt } from './canvasPaint.ts';
import { FrameMeter } from './frameMeter.ts';
import { GanttSvg } from './GanttSvg.tsx';
import { type GanttLayout, GUTTER, layoutGantt, opAt, opsInWindow } from './layout.ts';
import { OpDetails } from './OpDetails.tsx';
import { indexPlan } from './planIndex.ts';
import type { OpMove } from './reorder.ts';
import { clampTranslate, type TimeView, timeView } from './view.ts';
import type { ViewSync } from './viewSync.ts';

/** HTML5 drag data type of a palette item; the data is the item's name (`split_backward`, `dualpipev`). */
export const PALETTE_DRAG_TYPE = 'application/x-stagecraft-palette';

/** Above this many ops the timeline draws on a canvas instead of one SVG element per op. */
export const SVG_OP_LIMIT = 3000;
/** On canvas, hit-test elements (`data-op-id`) are laid over the visible ops up to this many. */
export const OVERLAY_OP_LIMIT = 1500;

export interface GanttProps {
  /** The simulated step; its `timeline` and `memory` are drawn (simulate with keepTimeline on). */
  sim: Simulation;
  /** The compiled plan the simulation ran: streams, stages, provenance, SEND/RECV pairs. */
  plan: Plan;
  /** Memory capacity of a device in bytes, drawn as a dashed line over its memory curve. */
  memoryCapacityBytes?: (device: number) => number | undefined;
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
  /** Collect frame times while zooming and panning in window.__stagecraftGanttFrames (frameMeter.ts). */
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

interface DragMark {
  target: number;
  position: 'before' | 'after';
}

const MAX_ZOOM = 50_000;

export function Gantt(props: GanttProps) {
  const { sim, plan, memoryCapacityBytes } = props;
  const rootRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLDivElement>(null);
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const capKey = plan.devices.map((d) => memoryCapacityBytes?.(d.device) ?? '').join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: capacities are compared by value (capKey), not by the callback's identity
  const layout = useMemo(() => layoutGantt(sim, plan, { memoryCapacityBytes }), [sim, plan, capKey]);
  const planIndex = useMemo(() => indexPlan(plan), [plan]);
  const mode: 'svg' | 'canvas' =
    props.render === 'svg' || props.render === 'canvas'
      ? props.render
      : layout.ops.length > SVG_OP_LIMIT
        ? 'canvas'
        : 'svg';
  const domainMs = props.domainMs ?? sim.makespanMs;

  const [measured, setMeasured] = useState(960);
  const width = props.width ?? measured;
  const [, setFrame] = useState(0);
  const [hover, setHover] = useState(-1);
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

  const paint = () => {
    const l = live.current;
    if (l.mode !== 'canvas') return;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(l.width * dpr);
    const h = Math.round(l.layout.height * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      canvas.style.width = `${l.width}px`;
      canvas.style.height = `${l.layout.height}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paintGantt(ctx, l.layout, l.planIndex, viewOf(), {
      selection: l.props.selection ?? null,
      dropTarget: l.dropTarget,
      showArrows: l.props.showArrows ?? false,
    });
    if (l.props.measureFrames) meter.current.draw(performance.now() - t0);
  };

  const redraw = () => {
    if (rafRef.current !== 0) return;
    rafRef.current = requestAnimationFrame(() => {
      rafRef.current = 0;
      if (live.current.mode === 'canvas') paint();
      else setFrame((f) => f + 1);
    });
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

  const hitIndex = (clientX: number, clientY: number): number => {
    const root = rootRef.current;
    if (!root) return -1;
    const rect = root.getBoundingClientRect();
    const x = clientX - rect.left;
    const y = clientY - rect.top;
    if (x < GUTTER) return -1;
    const view = viewOf();
    const msPerPx = view.t(x + 1) - view.t(x) || 1;
    return opAt(live.current.layout, view.t(x), y, 2 * msPerPx);
  };

  // Follow the element's width.
  useLayoutEffect(() => {
    const root = rootRef.current;
    if (!root || props.width !== undefined) return;
    if (root.clientWidth > 0) setMeasured(root.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => {
      if (root.clientWidth > 0) setMeasured(root.clientWidth);
    });
    ro.observe(root);
    return () => ro.disconnect();
  }, [props.width]);

  // Zoom and pan.
  // biome-ignore lint/correctness/useExhaustiveDependencies: bound once per element and view sync; handlers read `live`
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const sel = select(root);
    // Set while applying another timeline's transform, so it is not published back.
    const applyingSync = { current: false };
    const isPanWheel = (e: WheelEvent) => e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
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
        if (live.current.props.measureFrames) meter.current.start();
        if (overlayRef.current) overlayRef.current.style.display = 'none';
      })
      .on('zoom', (e: D3ZoomEvent<HTMLDivElement, unknown>) => {
        transformRef.current = e.transform;
        if (!applyingSync.current) props.viewSync?.publish({ k: e.transform.k, x: e.transform.x }, root);
        redraw();
      })
      .on('end', () => {
        meter.current.stop();
        if (overlayRef.current) overlayRef.current.style.display = '';
        rebuildOverlay();
      });
    zoomRef.current = z;
    sel.call(z).on('dblclick.zoom', null);
    const onWheel = (e: WheelEvent) => {
      if (!isPanWheel(e)) return;
      e.preventDefault();
      const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
      z.translateBy(sel, -d / transformRef.current.k, 0);
    };
    root.addEventListener('wheel', onWheel, { passive: false });
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
        const rect = root.getBoundingClientRect();
        const x0 = view.x(o.ev.startMs);
        return {
          x: rect.left + x0,
          y: rect.top + o.y,
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
      unsubscribe?.();
      meter.current.stop();
      if (rafRef.current !== 0) cancelAnimationFrame(rafRef.current);
      rafRef.current = 0;
      delete root.stagecraftGantt;
    };
  }, [props.viewSync]);

  // A new plan or width keeps the zoom but re-clamps it; the canvas repaints on every visual change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: paint and rebuildOverlay read `live`
  useEffect(() => {
    paint();
    rebuildOverlay();
  }, [layout, width, mode, props.selection, dropTarget, props.showArrows, domainMs]);

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
      const target = hitIndex(m.clientX, m.clientY);
      const mark = target >= 0 && target !== p.index ? markFor(target, m.clientX) : null;
      setDragMark((old) => (old?.target === mark?.target && old?.position === mark?.position ? old : mark));
    };
    const up = (u: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      const p = pressRef.current;
      pressRef.current = null;
      setDragMark(null);
      if (!p?.dragging) return;
      suppressClick.current = true;
      const target = hitIndex(u.clientX, u.clientY);
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

  const markFor = (target: number, clientX: number): DragMark => {
    const o = live.current.layout.ops[target]!;
    const view = viewOf();
    const left = rootRef.current?.getBoundingClientRect().left ?? 0;
    const mid = view.x((o.ev.startMs + o.ev.endMs) / 2) + left;
    return { target, position: clientX < mid ? 'before' : 'after' };
  };

  const onPointerMove = (e: React.PointerEvent) => {
    if (pressRef.current) return;
    const index = hitIndex(e.clientX, e.clientY);
    if (index === live.current.hover) return;
    setHover(index);
    props.onHover?.(layout.ops[index]?.ev ?? null);
  };

  const onPointerLeave = () => {
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
    // biome-ignore lint/a11y/noStaticElementInteractions: the timeline is a pointer surface; ops are also reachable through the program list
    <div
      ref={rootRef}
      data-testid="gantt"
      data-render={mode}
      data-ops={layout.ops.length}
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
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onSelect?.(null);
      }}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={onDrop}
    >
      {sim.timeline === undefined && (
        <p style={{ position: 'absolute', left: GUTTER, top: 24, margin: 0 }}>
          No timeline in this simulation.
        </p>
      )}
      {mode === 'svg' ? (
        <GanttSvg
          layout={layout}
          plan={planIndex}
          view={view}
          selection={props.selection ?? null}
          dropTarget={dropTarget}
          showArrows={props.showArrows ?? false}
          uid={uid}
        />
      ) : (
        <canvas ref={canvasRef} style={{ display: 'block' }} />
      )}
      <div
        ref={overlayRef}
        data-testid="gantt-hit-layer"
        style={{ position: 'absolute', inset: 0, pointerEvents: 'none' }}
      />
      {dragMark && <InsertMark layout={layout} view={view} mark={dragMark} />}
      {hovered && !dragMark && (
        <OpDetails
          op={hovered.ev}
          plan={planIndex}
          view={view}
          layout={layout}
          directiveLabel={props.directiveLabel}
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

function InsertMark({ layout, view, mark }: { layout: GanttLayout; view: TimeView; mark: DragMark }) {
  const o = layout.ops[mark.target]!;
  const x = view.x(mark.position === 'before' ? o.ev.startMs : o.ev.endMs);
  return (
    <div
      data-testid="gantt-insert-mark"
      data-position={mark.position}
      data-target={o.ev.id}
      style={{
        position: 'absolute',
        left: x - 1.5,
        top: o.y - 3,
        width: 3,
        height: o.h + 6,
        background: '#e03131',
        pointerEvents: 'none',
      }}
    />
  );
}
