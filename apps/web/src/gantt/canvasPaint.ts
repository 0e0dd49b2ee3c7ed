/**
 * Draws a timeline on a 2D canvas, for plans too large for one DOM element per op: the marks of
 * scene.ts, painted. Only what lies in the visible time window and rows is drawn, and fills are
 * batched per colour, so a pan over tens of thousands of ops stays within a frame.
 */
import {
  BUBBLE_FILL,
  BUBBLE_HATCH,
  CAPACITY_LINE,
  GUTTER_FILL,
  MEMORY_FILL,
  MEMORY_LINE,
  OOM_FILL,
  OVERLAP_OUTLINE,
  STEP_END,
  TEXT_MUTED,
  TEXT_SECONDARY,
} from './colors.ts';
import type { Flow } from './flows.ts';
import { AXIS_HEIGHT, type GanttLayout, GUTTER, opsInWindow } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import {
  bubbleBox,
  fontOf,
  gutterMark,
  highlights,
  memoryMark,
  opBox,
  opMark,
  type Stretch,
  stepEndX,
  type TextMark,
  transferMarks,
} from './scene.ts';
import { axisTicks } from './ticks.ts';
import type { TimeView } from './view.ts';

export interface PaintState {
  selection: string | null;
  dropTarget: number;
  /** The hovered op: every op of its microbatch is outlined. */
  hover?: number;
  showArrows: boolean;
  /** SEND→RECV flows of the selected op, drawn whatever showArrows says. */
  flows?: readonly Flow[];
  /** Rows to paint (content pixels); the rest is off screen. */
  y0: number;
  y1: number;
}

/** What every part paints: the layout, the view, the stretch in view and which rows are. */
interface Frame {
  ctx: CanvasRenderingContext2D;
  layout: GanttLayout;
  plan: PlanIndex;
  view: TimeView;
  stretch: Stretch;
  rowsInView(top: number, height: number): boolean;
}

export function paintGantt(
  ctx: CanvasRenderingContext2D,
  layout: GanttLayout,
  plan: PlanIndex,
  view: TimeView,
  state: PaintState,
): void {
  const { width } = view;
  const { y0, y1 } = state;
  const f: Frame = {
    ctx,
    layout,
    plan,
    view,
    stretch: { t0: view.t0, t1: view.t1, x0: GUTTER, x1: width },
    rowsInView: (top, height) => top + height >= y0 && top <= y1,
  };
  // The canvas is opaque (composited faster): paint the background.
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, y0, width, y1 - y0);
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, y0, width - GUTTER, y1 - y0);
  ctx.clip();
  paintBubbles(f);
  paintOps(f);
  for (const h of highlights(layout, view, state.selection, state.dropTarget, state.hover)) {
    ctx.strokeStyle = h.color;
    ctx.lineWidth = 2;
    ctx.setLineDash(h.dash);
    ctx.strokeRect(h.x, h.y, h.w, h.h);
    ctx.setLineDash([]);
  }
  paintTransfers(f, state.showArrows, state.flows ?? []);
  paintStepEnd(f);
  paintMemory(f);
  ctx.restore();
  // Gutter labels and the axis, drawn last so ops scroll under them.
  paintGutter(f, y0, y1);
  paintAxis(ctx, view);
}

let hatch: CanvasPattern | null | undefined;

function hatchPattern(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  if (hatch !== undefined) return hatch;
  const tile = document.createElement('canvas');
  tile.width = 6;
  tile.height = 6;
  const t = tile.getContext('2d');
  if (!t) return (hatch = null);
  t.strokeStyle = BUBBLE_HATCH;
  t.lineWidth = 1;
  t.beginPath();
  t.moveTo(0, 6);
  t.lineTo(6, 0);
  t.stroke();
  hatch = ctx.createPattern(tile, 'repeat');
  return hatch;
}

/** Bubbles under the ops: tinted and hatched. */
function paintBubbles({ ctx, layout, view, stretch, rowsInView }: Frame): void {
  const pattern = hatchPattern(ctx);
  for (let i = 0; i < layout.bubbles.length; i++) {
    const b = bubbleBox(layout, view, i, stretch);
    if (!b || !rowsInView(b.y, b.h)) continue;
    ctx.fillStyle = BUBBLE_FILL;
    ctx.fillRect(b.x, b.y, b.w, b.h);
    if (pattern) {
      ctx.fillStyle = pattern;
      ctx.fillRect(b.x, b.y, b.w, b.h);
    }
  }
}

/**
 * Ops, batched per colour. Filled one rectangle at a time rather than as one path per colour:
 * a path of thousands of rectangles is scan-converted as a whole when the canvas is flushed,
 * which at 20k ops cost the first frame of a result about twice the time of separate fills.
 */
function paintOps({ ctx, layout, plan, view, rowsInView }: Frame): void {
  const rects = new Map<string, number[]>();
  const outlines = new Path2D();
  const labels: TextMark[] = [];
  for (const lane of layout.lanes) {
    if (!rowsInView(lane.top, lane.height)) continue;
    // Zoomed out, many ops share a pixel column: the first one drawn in a column stands for the
    // rest, which keeps the number of rectangles at about the plot's width per row.
    const filled = new Map<number, number>();
    for (const i of opsInWindow(layout, lane, view.t0, view.t1)) {
      const o = layout.ops[i]!;
      const box = opBox(o, view);
      const lastColumn = Math.floor(box.x + box.w - 1e-6);
      if (lastColumn <= (filled.get(o.y) ?? Number.NEGATIVE_INFINITY)) continue;
      filled.set(o.y, lastColumn);
      const mark = opMark(o, box, plan);
      for (const fill of mark.fills) {
        let r = rects.get(fill.color);
        if (!r) rects.set(fill.color, (r = []));
        r.push(box.x, fill.y, box.w, fill.h);
      }
      if (mark.outline) outlines.rect(mark.outline.x, mark.outline.y, mark.outline.w, mark.outline.h);
      if (mark.label) labels.push(mark.label);
    }
  }
  for (const [color, r] of rects) {
    ctx.fillStyle = color;
    for (let k = 0; k < r.length; k += 4) ctx.fillRect(r[k]!, r[k + 1]!, r[k + 2]!, r[k + 3]!);
  }
  ctx.strokeStyle = OVERLAP_OUTLINE;
  ctx.lineWidth = 1.5;
  ctx.stroke(outlines);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const t of labels) paintText(ctx, t);
}

function paintText(ctx: CanvasRenderingContext2D, t: TextMark): void {
  ctx.font = fontOf(t);
  ctx.fillStyle = t.color;
  ctx.fillText(t.text, t.x, t.y);
}

/** Transfers as lines with a filled arrowhead at the RECV's end. */
function paintTransfers(
  { ctx, layout, plan, view, stretch }: Frame,
  showArrows: boolean,
  flows: readonly Flow[],
): void {
  for (const m of transferMarks(layout, plan, view, stretch, showArrows, flows)) {
    ctx.strokeStyle = m.color;
    ctx.fillStyle = m.color;
    ctx.lineWidth = m.width;
    ctx.beginPath();
    ctx.moveTo(m.x1, m.y1);
    ctx.lineTo(m.x2, m.y2);
    ctx.stroke();
    const ang = Math.atan2(m.y2 - m.y1, m.x2 - m.x1);
    ctx.beginPath();
    ctx.moveTo(m.x2, m.y2);
    ctx.lineTo(m.x2 - 6 * Math.cos(ang - 0.4), m.y2 - 6 * Math.sin(ang - 0.4));
    ctx.lineTo(m.x2 - 6 * Math.cos(ang + 0.4), m.y2 - 6 * Math.sin(ang + 0.4));
    ctx.fill();
  }
}

function paintStepEnd({ ctx, layout, view }: Frame): void {
  const x = stepEndX(layout, view);
  if (x === null) return;
  ctx.strokeStyle = STEP_END;
  ctx.lineWidth = 1;
  ctx.setLineDash([2, 3]);
  ctx.beginPath();
  ctx.moveTo(x, AXIS_HEIGHT);
  ctx.lineTo(x, layout.height);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** Memory curves with the capacity line. */
function paintMemory({ ctx, layout, view, stretch, rowsInView }: Frame): void {
  for (const band of layout.bands) {
    if (band.memoryHeight === 0 || !rowsInView(band.memoryTop, band.memoryHeight)) continue;
    const m = memoryMark(band, view, stretch, layout.makespanMs);
    if (m.oom) {
      ctx.fillStyle = OOM_FILL;
      ctx.fillRect(m.oom.x, m.oom.y, m.oom.w, m.oom.h);
    }
    const area = new Path2D();
    const line = new Path2D();
    const v = m.vertices;
    if (v.length > 0) {
      area.moveTo(v[0]![0], m.baseY);
      v.forEach(([x, y], k) => {
        area.lineTo(x, y);
        if (k === 0) line.moveTo(x, y);
        else line.lineTo(x, y);
      });
      area.lineTo(v[v.length - 1]![0], m.baseY);
      area.closePath();
    }
    ctx.fillStyle = MEMORY_FILL;
    ctx.fill(area);
    ctx.strokeStyle = MEMORY_LINE;
    ctx.lineWidth = 1;
    ctx.stroke(line);
    if (m.capacityY !== null) {
      ctx.strokeStyle = CAPACITY_LINE;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(stretch.x0, m.capacityY);
      ctx.lineTo(stretch.x1, m.capacityY);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }
}

/** The gutter's labels, which stop at its edge: a long one ("dev 1152 · PP 6,9") never runs into the plot. */
function paintGutter({ ctx, layout, rowsInView }: Frame, y0: number, y1: number): void {
  ctx.fillStyle = GUTTER_FILL;
  ctx.fillRect(0, y0, GUTTER, y1 - y0);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, y0, GUTTER - 3, y1 - y0);
  ctx.clip();
  for (const band of layout.bands) {
    if (!rowsInView(band.top, band.bottom - band.top)) continue;
    const g = gutterMark(band);
    for (const t of g.lines) paintText(ctx, t);
    for (const s of g.streams) if (s.text) paintText(ctx, s.text);
    if (g.memory.peak) paintText(ctx, g.memory.peak);
    if (g.memory.base) paintText(ctx, g.memory.base);
  }
  ctx.restore();
}

/** The time axis row: also drawn alone on the sticky axis that stays in view while the lanes scroll. */
export function paintAxis(ctx: CanvasRenderingContext2D, view: TimeView): void {
  const { width } = view;
  ctx.fillStyle = GUTTER_FILL;
  ctx.fillRect(0, 0, GUTTER, AXIS_HEIGHT);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(GUTTER, 0, width - GUTTER, AXIS_HEIGHT);
  ctx.strokeStyle = TEXT_MUTED;
  ctx.fillStyle = TEXT_SECONDARY;
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(GUTTER, AXIS_HEIGHT - 0.5);
  ctx.lineTo(width, AXIS_HEIGHT - 0.5);
  for (const tick of axisTicks(view)) {
    if (tick.x > width - 14) continue;
    ctx.moveTo(tick.x, AXIS_HEIGHT - 5);
    ctx.lineTo(tick.x, AXIS_HEIGHT);
    ctx.fillText(tick.label, tick.x, AXIS_HEIGHT / 2 - 2);
  }
  ctx.stroke();
}
