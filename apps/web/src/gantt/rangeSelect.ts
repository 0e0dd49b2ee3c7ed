/**
 * A time range dragged on the axis row, as Perfetto's area selection in time only: a press on the
 * axis marks [t0, t1] instead of panning, and a click on the axis clears it. The overlay showing it
 * follows zoom and pan through place(), which the painter calls after each draw, without a render.
 */
import type { GanttGeometry } from './geometry.ts';
import type { GanttLive } from './props.ts';

/** Pixels a press must move before it is a range rather than a click. */
const SLOP = 3;

export class RangeSelect {
  private anchor: { t: number; x: number } | null = null;
  private moved = false;
  private swallowClick = false;

  constructor(
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
    private readonly overlay: () => HTMLElement | null,
    private readonly changed: (range: [number, number] | null) => void,
  ) {}

  private timeAt(clientX: number): number {
    const x = clientX - this.geometry.origin().left;
    const l = this.live();
    return Math.max(0, Math.min(l.domainMs, this.geometry.view().t(x)));
  }

  /** A press on the axis starts a range (true); anywhere else it is not ours. */
  start(e: React.PointerEvent): boolean {
    if (e.button !== 0 || !this.geometry.inAxis(e.clientX, e.clientY)) return false;
    this.anchor = { t: this.timeAt(e.clientX), x: e.clientX };
    this.moved = false;
    (e.target as Element).setPointerCapture?.(e.pointerId);
    return true;
  }

  move(e: React.PointerEvent): boolean {
    const a = this.anchor;
    if (!a) return false;
    if (Math.abs(e.clientX - a.x) > SLOP) this.moved = true;
    if (this.moved) this.changed([a.t, this.timeAt(e.clientX)]);
    return true;
  }

  end(): boolean {
    if (!this.anchor) return false;
    if (!this.moved) this.changed(null);
    this.anchor = null;
    this.swallowClick = true;
    return true;
  }

  /** Whether the click that ends a press on the axis is ours (it selects no op). */
  takeClick(): boolean {
    const taken = this.swallowClick;
    this.swallowClick = false;
    return taken;
  }

  /** Puts the overlay over the range in the current view. */
  place(): void {
    const el = this.overlay();
    const range = this.live().range;
    if (!el) return;
    if (!range) {
      el.style.display = 'none';
      return;
    }
    const view = this.geometry.view();
    const x0 = view.x(Math.min(range[0], range[1]));
    const x1 = view.x(Math.max(range[0], range[1]));
    el.style.display = 'block';
    el.style.left = `${x0}px`;
    el.style.width = `${Math.max(1, x1 - x0)}px`;
  }
}
