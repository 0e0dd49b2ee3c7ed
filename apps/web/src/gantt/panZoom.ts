/**
 * Zoom and pan through d3-zoom, in time only, with the hands of Perfetto and the Zero Bubble
 * playground: Ctrl/⌘+wheel zooms around the pointer, a plain wheel scrolls the devices (the
 * browser's own scroll), a drag (off the axis row, where a drag marks a range), a shift+wheel or a
 * horizontal wheel pans, and keys step (W/S zoom, A/D pan, as Perfetto's). Each step repaints
 * through the painter without a React render, and is shared with other timelines through a ViewSync.
 */
import { select } from 'd3-selection';
import { type D3ZoomEvent, type ZoomBehavior, zoom, zoomIdentity } from 'd3-zoom';
import type { GanttGeometry } from './geometry.ts';
import type { HitLayer } from './hitLayer.ts';
import { GUTTER } from './layout.ts';
import type { GanttPainter } from './painter.ts';
import { type GanttLive, measuring } from './props.ts';
import { clampTranslate } from './view.ts';
import type { ViewSync } from './viewSync.ts';

export const MAX_ZOOM = 50_000;

/** Ctrl (a trackpad's pinch arrives so too) or ⌘ with the wheel zooms. */
const isZoomWheel = (e: WheelEvent) => e.ctrlKey || e.metaKey;
const isPanWheel = (e: WheelEvent) =>
  !isZoomWheel(e) && (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY));

export class PanZoom {
  private zoom: ZoomBehavior<HTMLElement, unknown> | null = null;
  private root: HTMLElement | null = null;

  constructor(
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
    private readonly painter: GanttPainter,
    private readonly hitLayer: HitLayer,
    /** Renders the component again (to re-centre the SVG's margin on a settled view). */
    private readonly rerender: () => void,
  ) {}

  /** Binds zoom, wheel and scroll to the root, and follows `viewSync`; returns the unbinding. */
  attach(root: HTMLElement, viewSync: ViewSync | undefined): () => void {
    this.root = root;
    const sel = select(root);
    // Set while applying another timeline's transform, so it is not published back.
    let applyingSync = false;
    // Whether the zoom under way comes from a pan wheel.
    let inWheel = false;
    const z = zoom<HTMLElement, unknown>()
      .scaleExtent([1, MAX_ZOOM])
      .filter((e: Event) => {
        // A plain wheel is left to the browser: it scrolls the devices.
        if (e.type === 'wheel') return isZoomWheel(e as WheelEvent);
        if (e.type === 'dblclick') return false;
        const m = e as MouseEvent;
        if (m.button || m.ctrlKey) return false;
        // A press on the axis row marks a time range (rangeSelect.ts), not a pan.
        if (e.type === 'mousedown' && this.geometry.inAxis(m.clientX, m.clientY)) return false;
        // A press on an op starts a reorder drag, not a pan.
        if (
          e.type === 'mousedown' &&
          this.live().props.onReorder &&
          this.geometry.opIndex(m.clientX, m.clientY) >= 0
        )
          return false;
        return true;
      })
      .constrain((t) => {
        const x = clampTranslate(t.k, t.x, this.live().width, GUTTER);
        return x === t.x && t.y === 0 ? t : zoomIdentity.translate(x, 0).scale(t.k);
      })
      .on('start', () => {
        if (measuring(this.live().props)) this.painter.meter.start();
        this.hitLayer.hide();
      })
      .on('zoom', (e: D3ZoomEvent<HTMLElement, unknown>) => {
        const before = this.geometry.transform;
        // A pan against the edge of the step changes nothing: skip the redraw.
        if (before.k === e.transform.k && before.x === e.transform.x) return;
        this.geometry.transform = e.transform;
        if (!applyingSync) viewSync?.publish({ k: e.transform.k, x: e.transform.x }, root);
        this.painter.redraw();
      })
      .on('end', (e: D3ZoomEvent<HTMLElement, unknown>) => {
        this.painter.meter.end();
        // Re-centre the SVG's rendered margin on the settled view.
        if (this.painter.svgPanned()) this.rerender();
        // A wheel step, the end of a drag or a synced step waits for the gesture to settle before
        // the hit layer is rebuilt; a scripted zoom (zoomTo, reveal) rebuilds at once.
        this.hitLayer.settle(e.sourceEvent != null || inWheel || applyingSync);
      });
    this.zoom = z;
    sel.call(z).on('dblclick.zoom', null);
    const onWheel = (e: WheelEvent) => {
      if (!isPanWheel(e)) return;
      e.preventDefault();
      const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
      inWheel = true;
      try {
        z.translateBy(sel, -d / this.geometry.transform.k, 0);
      } finally {
        inWheel = false;
      }
    };
    root.addEventListener('wheel', onWheel, { passive: false });
    // Any scroll (the root's or an ancestor's) moves which rows the canvas must cover.
    const onScroll = () => {
      if (this.live().mode === 'canvas') this.painter.redraw();
    };
    window.addEventListener('scroll', onScroll, { capture: true, passive: true });
    window.addEventListener('resize', onScroll);
    const follow = (t: { k: number; x: number }) => {
      applyingSync = true;
      z.transform(sel, zoomIdentity.translate(t.x, 0).scale(t.k));
      applyingSync = false;
    };
    const unsubscribe = viewSync?.subscribe((t, from) => {
      if (from !== root) follow(t);
    });
    if (viewSync) follow(viewSync.current());
    return () => {
      sel.on('.zoom', null);
      root.removeEventListener('wheel', onWheel);
      window.removeEventListener('scroll', onScroll, { capture: true });
      window.removeEventListener('resize', onScroll);
      unsubscribe?.();
      this.painter.stop();
      this.hitLayer.stop();
    };
  }

  /** A new width moves the edges the pan is held within: constrain the current view again. */
  reclamp(): void {
    if (this.root && this.zoom) this.zoom.transform(select(this.root), this.geometry.transform);
  }

  /** Zoom so that [t0, t1] milliseconds fill the plot. */
  zoomTo(t0: number, t1: number): void {
    if (!this.root || !this.zoom) return;
    const l = this.live();
    const span = Math.max(1, l.width - GUTTER - 8);
    const d = l.domainMs > 0 ? l.domainMs : 1;
    const k = Math.min(MAX_ZOOM, Math.max(1, d / Math.max(1e-9, t1 - t0)));
    const u0 = GUTTER + (t0 / d) * span;
    this.zoom.transform(select(this.root), zoomIdentity.translate(GUTTER - u0 * k, 0).scale(k));
  }

  /**
   * Bring an op into view, centred, zooming in until the window spans at most 40 of its durations
   * (so that on canvas its hit-test element exists). False when it is not in this plan.
   */
  reveal(id: string): boolean {
    const l = this.live();
    const o = l.layout.ops[l.layout.byId.get(id) ?? -1];
    if (!o) return false;
    const v = this.geometry.view();
    const dur = Math.max(o.ev.endMs - o.ev.startMs, l.domainMs / MAX_ZOOM);
    const span = Math.min(v.t1 - v.t0, 40 * dur);
    const mid = (o.ev.startMs + o.ev.endMs) / 2;
    const t0 = Math.max(0, Math.min(mid - span / 2, l.domainMs - span));
    this.zoomTo(t0, t0 + span);
    return true;
  }

  /**
   * Keys: + and − (or W and S) zoom around the centre, ← and → (or A and D) pan, 0 shows the whole
   * step. False for other keys.
   */
  key(key: string): boolean {
    if (!this.root || !this.zoom) return false;
    const z = this.zoom;
    const sel = select(this.root);
    const width = this.live().width;
    const centre: [number, number] = [GUTTER + (width - GUTTER) / 2, 0];
    const step = (width - GUTTER) / 8 / this.geometry.transform.k;
    const k = key.length === 1 ? key.toLowerCase() : key;
    if (k === '+' || k === '=' || k === 'w') z.scaleBy(sel, 1.5, centre);
    else if (k === '-' || k === '_' || k === 's') z.scaleBy(sel, 1 / 1.5, centre);
    else if (k === 'ArrowLeft' || k === 'a') z.translateBy(sel, step, 0);
    else if (k === 'ArrowRight' || k === 'd') z.translateBy(sel, -step, 0);
    else if (key === '0') z.transform(sel, zoomIdentity);
    else return false;
    return true;
  }
}
