/**
 * Draws the timeline between React renders: on canvas every zoom, pan and scroll repaints
 * imperatively, and on SVG a pan within the rendered margin only moves the time group. A React
 * render is asked for only when SVG must be laid out anew, within the same frame so the pan keeps
 * up with the pointer.
 */
import { nextTask } from '../core/nextTask.ts';
import { paintAxis, paintGantt } from './canvasPaint.ts';
import { FrameMeter } from './frameMeter.ts';
import { PAN_MARGIN_VIEWS } from './GanttSvg.tsx';
import type { GanttGeometry } from './geometry.ts';
import { AXIS_HEIGHT, GUTTER } from './layout.ts';
import { type GanttLive, measuring } from './props.ts';
import { beginTimelineWork, endTimelineWork } from './slicedLayout.ts';

/** Pixels painted above and below what is in view, so a short scroll shows painted rows at once. */
const ROW_MARGIN = 200;

/**
 * A new layout is painted in slices of rows, each slice sized to take about this long and the next
 * one in a task of its own once a task has spent it: issue 30 §5 bounds every task by 100 ms, and
 * DeepSeek-V3's first paint of all its rows in view took 0.15–0.7 s in one task (2026-12-07 traces,
 * load 3–25), which a loaded machine stretches 2–3×.
 */
const SLICE_BUDGET_MS = 25;
/** The first slice's rows, before a slice's cost is known: about one device's band of rows. */
const FIRST_SLICE_PX = 96;

export interface PainterElements {
  root(): HTMLElement | null;
  canvas(): HTMLCanvasElement | null;
  /** The sticky copy of the axis, for when the lanes are scrolled under it. */
  axis(): HTMLCanvasElement | null;
  /** The SVG group that moves with time. */
  panGroup(): SVGGElement | null;
}

export class GanttPainter {
  readonly meter = new FrameMeter();
  private raf = 0;
  /** The transform the SVG was last rendered at. */
  private renderedAt = { k: 1, x: 0, width: 0 };
  /** Frame timestamp and start time of an SVG redraw, timed when React commits it. */
  private svgFrame: { at: number; t0: number } | null = null;

  constructor(
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
    private readonly el: PainterElements,
    /** Renders the component synchronously (SVG is drawn by React). */
    private readonly renderNow: () => void,
    /** After every draw: overlays that follow the view (the range) are placed again. */
    private readonly drawn: () => void = () => {},
  ) {}

  paintStickyAxis(): void {
    const canvas = this.el.axis();
    const ctx = canvas?.getContext('2d', { alpha: false });
    if (!canvas || !ctx) return;
    const l = this.live();
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
    paintAxis(ctx, this.geometry.view());
  }

  /**
   * Content rows [y0, y1) in view (the root or the page may scroll), with a margin: the canvas is
   * only that tall, so a timeline of many devices costs no more per frame than the screen shows.
   */
  private visibleRows(): [number, number] {
    const root = this.el.root();
    const h = this.live().layout.height;
    if (!root) return [0, h];
    const rect = root.getBoundingClientRect();
    const originTop = rect.top + root.clientTop - root.scrollTop;
    const top = Math.max(rect.top + root.clientTop, 0);
    const bottom = Math.min(rect.top + root.clientTop + (root.clientHeight || h), window.innerHeight || h);
    const y0 = Math.max(0, Math.floor(top - originTop - ROW_MARGIN));
    const y1 = Math.min(h, Math.ceil(bottom - originTop + ROW_MARGIN));
    return y1 > y0 ? [y0, y1] : [0, 0];
  }

  /** The canvas sized to the rows in view, or null when there is nothing to paint on. */
  private prepare(): { ctx: CanvasRenderingContext2D; y0: number; y1: number } | null {
    const l = this.live();
    if (l.mode !== 'canvas') return null;
    const canvas = this.el.canvas();
    const ctx = canvas?.getContext('2d', { alpha: false });
    if (!canvas || !ctx) return null;
    const [y0, y1] = this.visibleRows();
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
    this.paintStickyAxis();
    return { ctx, y0, y1 };
  }

  /** Paints content rows [y0, y1) of the canvas whose top row is `top`. */
  private paintRows(ctx: CanvasRenderingContext2D, top: number, y0: number, y1: number): void {
    const l = this.live();
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
    paintGantt(ctx, l.layout, l.planIndex, this.geometry.view(), {
      selection: l.props.selection ?? null,
      dropTarget: l.dropTarget,
      hover: l.hover,
      showArrows: l.props.showArrows ?? false,
      flows: l.flows,
      y0,
      y1,
    });
  }

  /** Every row in view, now: a pan, a zoom, a hover or a selection shows in this frame. */
  paint(frameTime = performance.now()): void {
    this.stopSlices();
    const t0 = performance.now();
    const target = this.prepare();
    if (!target) return;
    const { ctx, y0, y1 } = target;
    if (y1 > y0) this.paintRows(ctx, y0, y0, y1);
    this.drawn();
    if (measuring(this.live().props)) this.meter.draw(performance.now() - t0, frameTime);
  }

  /** Whether the next paintChanges() paints a new layout (in slices). */
  private layoutChanged = false;

  /** The layout, width or mode changed: the next paintChanges() paints it in slices. */
  newLayout(): void {
    this.layoutChanged = true;
    this.el.root()?.setAttribute('data-painting', 'slices');
  }

  /** What changed since the last paint: a new layout in slices, anything else at once. */
  paintChanges(): void {
    if (!this.layoutChanged) {
      this.paint();
      return;
    }
    this.layoutChanged = false;
    this.paintInSlices();
  }

  /** Cancels the slices of a new layout's paint still to come. */
  private stopSlices: () => void = () => {};

  /**
   * A new layout's rows in view, top to bottom in slices of about SLICE_BUDGET_MS, yielding to the
   * page between tasks; any paint() before the last slice paints every row at once instead. The
   * root says `data-painting="slices"` until the last slice is painted.
   */
  private paintInSlices(): void {
    this.stopSlices();
    const root = this.el.root();
    const target = this.prepare();
    if (!target) {
      root?.removeAttribute('data-painting');
      return;
    }
    const { ctx, y0, y1 } = target;
    // Rows not painted yet show blank, not the last layout's ops (or a resized canvas's black).
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    let at = y0;
    let rows = FIRST_SLICE_PX;
    let stopped = false;
    const slice = () => {
      if (stopped) return;
      const started = performance.now();
      while (at < y1 && performance.now() - started < SLICE_BUDGET_MS) {
        const end = Math.min(y1, at + rows);
        const t = performance.now();
        this.paintRows(ctx, y0, at, end);
        // The next slice as tall as fits the budget at this one's cost per row.
        rows = Math.max(16, Math.round(((end - at) * SLICE_BUDGET_MS) / Math.max(performance.now() - t, 1)));
        at = end;
      }
      if (at < y1) {
        void nextTask().then(slice);
        return;
      }
      this.stopSlices = () => {};
      root?.removeAttribute('data-painting');
      endTimelineWork(job);
      this.drawn();
    };
    this.stopSlices = () => {
      stopped = true;
      root?.removeAttribute('data-painting');
      endTimelineWork(job);
    };
    // What waits for the timeline (the DAG a result asks the worker for) waits for the last slice.
    const job = {};
    beginTimelineWork(job);
    root?.setAttribute('data-painting', 'slices');
    slice();
  }

  /** Redraw in the next animation frame (one per frame however many events ask). */
  redraw(): void {
    if (this.raf !== 0) return;
    this.raf = requestAnimationFrame((at) => {
      this.raf = 0;
      if (this.live().mode === 'canvas') this.paint(at);
      else if (!this.panSvg(at)) {
        this.svgFrame = { at, t0: performance.now() };
        this.renderNow();
      }
    });
  }

  /**
   * A pan within the margin the SVG was rendered with only moves its time group: no render.
   * Returns false when a render is needed (zoom changed, or the pan went past the margin).
   */
  private panSvg(frameTime: number): boolean {
    const g = this.el.panGroup();
    const r = this.renderedAt;
    const t = this.geometry.transform;
    const l = this.live();
    if (!g || t.k !== r.k || r.width !== l.width) return false;
    const dx = t.x - r.x;
    if (Math.abs(dx) > (l.width - GUTTER) * PAN_MARGIN_VIEWS * 0.9) return false;
    const t0 = performance.now();
    g.setAttribute('transform', `translate(${dx},0)`);
    this.paintStickyAxis();
    this.drawn();
    if (measuring(l.props)) this.meter.draw(performance.now() - t0, frameTime);
    return true;
  }

  /** Whether the SVG's time group is moved off where it was rendered (a render re-centres it). */
  svgPanned(): boolean {
    return this.live().mode === 'svg' && this.el.panGroup()?.hasAttribute('transform') === true;
  }

  /** A render placed everything at the current transform: the pan group starts from there again. */
  rendered(): void {
    const t = this.geometry.transform;
    this.el.panGroup()?.removeAttribute('transform');
    this.renderedAt = { k: t.k, x: t.x, width: this.live().width };
    if (this.live().mode === 'svg') this.paintStickyAxis();
    this.drawn();
    const f = this.svgFrame;
    if (!f) return;
    this.svgFrame = null;
    if (measuring(this.live().props)) this.meter.draw(performance.now() - f.t0, f.at);
  }

  stop(): void {
    this.stopSlices();
    this.meter.stop();
    if (this.raf !== 0) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }
}
