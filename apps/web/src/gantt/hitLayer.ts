/**
 * On canvas, invisible elements over the visible ops (`data-op-id`) let tests, scripts and the
 * browser's own hit-testing find ops as on SVG. Rebuilding thousands of them on every wheel step
 * cost the pan a frame each time, so during a gesture the layer hides and is rebuilt once the
 * gesture has settled.
 */
import type { GanttGeometry } from './geometry.ts';
import { GUTTER, opsInWindow } from './layout.ts';
import type { GanttLive } from './props.ts';

/** On canvas, hit-test elements (`data-op-id`) are laid over the visible ops up to this many. */
export const OVERLAY_OP_LIMIT = 2500;
/** Quiet time after a user's zoom or pan before the canvas's hit layer is rebuilt. */
const OVERLAY_SETTLE_MS = 150;

export class HitLayer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: () => HTMLElement | null,
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
  ) {}

  rebuild(): void {
    const host = this.host();
    if (!host) return;
    const l = this.live();
    if (l.mode !== 'canvas') {
      host.replaceChildren();
      return;
    }
    const view = this.geometry.view();
    // Counted only up to one past the limit: a zoomed-out DeepSeek-V3 listed all 70k ops (90 ms).
    const visible: number[] = [];
    for (const lane of l.layout.lanes) {
      for (const i of opsInWindow(l.layout, lane, view.t0, view.t1, OVERLAY_OP_LIMIT + 1 - visible.length))
        visible.push(i);
      if (visible.length > OVERLAY_OP_LIMIT) break;
    }
    host.dataset.visibleOps =
      visible.length > OVERLAY_OP_LIMIT ? `>${OVERLAY_OP_LIMIT}` : String(visible.length);
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
  }

  /** A zoom or pan starts: the layer would lie about where ops are until it ends. */
  hide(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const host = this.host();
    if (host) host.style.display = 'none';
  }

  /** A zoom or pan ended: show the layer again, at once for a scripted one, else once input settles. */
  settle(fromInput: boolean): void {
    clearTimeout(this.timer);
    if (!fromInput) {
      this.show();
      return;
    }
    this.timer = setTimeout(() => this.show(), OVERLAY_SETTLE_MS);
  }

  private show(): void {
    this.timer = undefined;
    const host = this.host();
    if (host) host.style.display = '';
    this.rebuild();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
