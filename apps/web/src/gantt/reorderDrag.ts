/**
 * Dragging an op before or after another: the press, the translucent copy that follows the
 * pointer (moved without a render), the insertion mark and, on release over another op, the move
 * reported to the page. What the move means for the design is core/reorder.ts's business.
 */
import type { OpMove } from '../core/reorder.ts';
import { opColor } from './colors.ts';
import type { DragMark } from './GanttMarks.tsx';
import type { GanttGeometry } from './geometry.ts';
import { memberOp } from './label.ts';
import type { GanttLive } from './props.ts';

/** Pointer travel, in pixels, before a press on an op becomes a drag (less is a click). */
const DRAG_THRESHOLD = 4;

interface Press {
  index: number;
  x: number;
  y: number;
  dragging: boolean;
}

export interface ReorderDragEvents {
  /** The insertion mark to show while dragging, or null. */
  mark(mark: DragMark | null): void;
  /** A move was made on `device`'s ops (its refusal, if any, is shown beside that device). */
  moved(move: OpMove, device: number): void;
}

export class ReorderDrag {
  private press: Press | null = null;
  /** The click that ends a drag is not a selection. */
  private swallowClick = false;

  constructor(
    private readonly geometry: GanttGeometry,
    private readonly live: () => GanttLive,
    private readonly ghost: () => HTMLElement | null,
    private readonly on: ReorderDragEvents,
  ) {}

  /** Whether a press on an op is under way (hover is not tracked meanwhile). */
  get pressing(): boolean {
    return this.press !== null;
  }

  /** A pointer went down: on an op, with reordering enabled, it may become a drag. */
  start(e: { button: number; clientX: number; clientY: number }): void {
    if (e.button !== 0 || !this.live().props.onReorder) return;
    const index = this.geometry.opIndex(e.clientX, e.clientY);
    if (index < 0) return;
    this.press = { index, x: e.clientX, y: e.clientY, dragging: false };
    const move = (m: PointerEvent) => {
      const p = this.press;
      if (!p) return;
      if (!p.dragging && Math.hypot(m.clientX - p.x, m.clientY - p.y) < DRAG_THRESHOLD) return;
      p.dragging = true;
      this.moveGhost(p.index, m.clientX, m.clientY);
      const target = this.geometry.dropIndex(m.clientX, m.clientY);
      this.on.mark(target >= 0 && target !== p.index ? this.markFor(target, m.clientX) : null);
    };
    const up = (u: PointerEvent) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      const p = this.press;
      this.press = null;
      this.on.mark(null);
      const ghost = this.ghost();
      if (ghost) ghost.style.display = 'none';
      if (!p?.dragging) return;
      this.swallowClick = true;
      const target = this.geometry.dropIndex(u.clientX, u.clientY);
      const ops = this.live().layout.ops;
      const from = ops[p.index];
      const to = ops[target];
      if (!from || !to || target === p.index) return;
      const position = this.markFor(target, u.clientX).position;
      this.on.moved({ op: from.ev.id, target: to.ev.id, position }, from.ev.device);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  /** True once for the click that ends a drag: it must not select. */
  takeClick(): boolean {
    const swallow = this.swallowClick;
    this.swallowClick = false;
    return swallow;
  }

  private moveGhost(index: number, clientX: number, clientY: number): void {
    const ghost = this.ghost();
    const o = this.live().layout.ops[index];
    if (!ghost || !o) return;
    const view = this.geometry.view();
    const w = Math.max(6, view.x(o.ev.endMs) - view.x(o.ev.startMs));
    const at = this.geometry.origin();
    ghost.style.display = 'block';
    ghost.style.width = `${w}px`;
    ghost.style.height = `${o.h}px`;
    ghost.style.background = opColor(o.ev.members ? memberOp(o.ev.members[0]!) : o.ev.op, o.chunk);
    ghost.style.transform = `translate(${clientX - at.left - w / 2}px, ${clientY - at.top - o.h / 2}px)`;
  }

  /** Before or after the target, by which half of it the pointer is over. */
  private markFor(target: number, clientX: number): DragMark {
    const o = this.live().layout.ops[target]!;
    const mid = this.geometry.view().x((o.ev.startMs + o.ev.endMs) / 2) + this.geometry.origin().left;
    return { target, position: clientX < mid ? 'before' : 'after' };
  }
}
