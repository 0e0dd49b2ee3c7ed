/**
 * Draws a timeline on a 2D canvas, for plans too large for one DOM element per op. Only what
 * lies in the visible time window is drawn, and fills are batched per colour into one path, so a
 * pan over tens of thousands of ops stays within a frame.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import {
  ARROW,
  BUBBLE_FILL,
  BUBBLE_HATCH,
  CAPACITY_LINE,
  DROP_OUTLINE,
  FLOW,
  labelColor,
  MEMORY_FILL,
  MEMORY_LINE,
  OOM_FILL,
  OVERLAP_OUTLINE,
  opColor,
  SELECTION_OUTLINE,
  STEP_END,
} from './colors.ts';
import type { Flow } from './flows.ts';
import { formatBytes, mbLabel, memberOp } from './label.ts';
import { AXIS_HEIGHT, type DeviceBand, type GanttLayout, GUTTER, memoryY, opsInWindow } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import { axisTicks } from './ticks.ts';
import type { TimeView } from './view.ts';

export interface PaintState {
  selection: string | null;
  dropTarget: number;
  showArrows: boolean;
  /** SEND→RECV flows of the selected op, drawn whatever showArrows says. */
  flows?: readonly Flow[];
  /** Rows to paint (content pixels); the rest is off screen. */
  y0: number;
  y1: number;
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

export function paintGantt(
  ctx: CanvasRenderingContext2D,
  layout: GanttLayout,
  plan: PlanIndex,
  view: TimeView,
  state: PaintState,
): void {
  const { width } = view;
  const { y0, y1 } = state;
  const rowsInView = (top: number, height: number) => top + height >= y0 && top <= y1;
  // The canvas is opaque (composited faster): paint the background.
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, y0, width, y1 - y0);
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER, y0, width - GUTTER, y1 - y0);
  ctx.clip();

  // Bubbles under the ops.
  const pattern = hatchPattern(ctx);
  layout.bubbles.forEach((b, i) => {
    const lane = layout.lanes[layout.bubbleLane[i]!];
    if (!lane || b.endMs < view.t0 || b.startMs > view.t1 || !rowsInView(lane.top, lane.height)) return;
    const x0 = view.x(b.startMs);
    const w = view.x(b.endMs) - x0;
    ctx.fillStyle = BUBBLE_FILL;
    ctx.fillRect(x0, lane.top, w, lane.height);
    if (pattern) {
      ctx.fillStyle = pattern;
      ctx.fillRect(x0, lane.top, w, lane.height);
    }
  });

  // Ops, batched per colour. Filled one rectangle at a time rather than as one path per colour:
  // a path of thousands of rectangles is scan-converted as a whole when the canvas is flushed,
  // which at 20k ops cost the first frame of a result about twice the time of separate fills.
  const rects = new Map<string, number[]>();
  const outlines = new Path2D();
  const labels: [string, string, number, number][] = [];
  const addRect = (color: string, x: number, y: number, w: number, h: number) => {
    let r = rects.get(color);
    if (!r) rects.set(color, (r = []));
    r.push(x, y, w, h);
  };
  for (const lane of layout.lanes) {
    if (!rowsInView(lane.top, lane.height)) continue;
    // Zoomed out, many ops share a pixel column: the first one drawn in a column stands for the
    // rest, which keeps the number of rectangles at about the plot's width per row.
    const filled = new Map<number, number>();
    for (const i of opsInWindow(layout, lane, view.t0, view.t1)) {
      const o = layout.ops[i]!;
      const x0 = view.x(o.ev.startMs);
      const w = Math.max(1, view.x(o.ev.endMs) - x0 - (o.ev.endMs > o.ev.startMs ? 0.5 : 0));
      const lastColumn = Math.floor(x0 + w - 1e-6);
      const upTo = filled.get(o.y) ?? Number.NEGATIVE_INFINITY;
      if (lastColumn <= upTo) continue;
      filled.set(o.y, lastColumn);
      const h = Math.max(1, o.h - 1);
      const members = o.ev.members;
      if (members && members.length > 1) {
        const part = h / members.length;
        members.forEach((m, k) => {
          addRect(opColor(memberOp(m), o.memberChunks?.[k] ?? 0), x0, o.y + k * part, w, part);
        });
        if (w >= 3) outlines.rect(x0 + 0.5, o.y + 0.5, Math.max(0, w - 1), h - 1);
      } else {
        addRect(opColor(o.ev.op, o.chunk), x0, o.y, w, h);
      }
      if (w >= 14 && h >= 10) {
        const text = labelOf(o.ev, plan);
        if (text)
          labels.push([text, labelColor(members ? memberOp(members[0]!) : o.ev.op), x0 + w / 2, o.y + h / 2]);
      }
    }
  }
  for (const [color, r] of rects) {
    ctx.fillStyle = color;
    for (let k = 0; k < r.length; k += 4) ctx.fillRect(r[k]!, r[k + 1]!, r[k + 2]!, r[k + 3]!);
  }
  ctx.strokeStyle = OVERLAP_OUTLINE;
  ctx.lineWidth = 1.5;
  ctx.stroke(outlines);
  ctx.font = '10px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const [text, color, x, y] of labels) {
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }

  const outline = (index: number, color: string, dash: number[]) => {
    const o = layout.ops[index];
    if (!o) return;
    const x0 = view.x(o.ev.startMs);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.setLineDash(dash);
    ctx.strokeRect(x0 - 1, o.y - 1, Math.max(1, view.x(o.ev.endMs) - x0) + 2, o.h + 1);
    ctx.setLineDash([]);
  };
  if (state.selection !== null) outline(layout.byId.get(state.selection) ?? -1, SELECTION_OUTLINE, []);
  outline(state.dropTarget, DROP_OUTLINE, [3, 2]);

  if (state.showArrows) arrows(ctx, visibleTransfers(layout, plan, view.t0, view.t1), view, ARROW, 1);
  if (state.flows?.length) arrows(ctx, state.flows, view, FLOW, 2);

  // On an axis shared with longer steps, where this one ends.
  if (view.domainMs > layout.makespanMs * (1 + 1e-9)) {
    const x = view.x(layout.makespanMs);
    ctx.strokeStyle = STEP_END;
    ctx.lineWidth = 1;
    ctx.setLineDash([2, 3]);
    ctx.beginPath();
    ctx.moveTo(x + 0.5, AXIS_HEIGHT);
    ctx.lineTo(x + 0.5, layout.height);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // Memory curves with the capacity line.
  for (const band of layout.bands) {
    if (band.memoryHeight === 0 || !rowsInView(band.memoryTop, band.memoryHeight)) continue;
    const yOf = (bytes: number) => memoryY(band, bytes);
    if (band.oom) {
      ctx.fillStyle = OOM_FILL;
      ctx.fillRect(GUTTER, band.memoryTop, width - GUTTER, band.memoryHeight);
    }
    const vertices = stepVertices(band.memory, view, yOf, layout.makespanMs);
    const area = new Path2D();
    const line = new Path2D();
    const base = yOf(band.memoryBaseBytes);
    if (vertices.length > 0) {
      area.moveTo(vertices[0]![0], base);
      vertices.forEach(([x, y], k) => {
        area.lineTo(x, y);
        if (k === 0) line.moveTo(x, y);
        else line.lineTo(x, y);
      });
      area.lineTo(vertices[vertices.length - 1]![0], base);
      area.closePath();
    }
    ctx.fillStyle = MEMORY_FILL;
    ctx.fill(area);
    ctx.strokeStyle = MEMORY_LINE;
    ctx.lineWidth = 1;
    ctx.stroke(line);
    if (band.capacityBytes !== undefined) {
      ctx.strokeStyle = CAPACITY_LINE;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(GUTTER, yOf(band.capacityBytes));
      ctx.lineTo(width, yOf(band.capacityBytes));
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }
  ctx.restore();

  // Gutter labels and the axis, drawn last so ops scroll under them.
  ctx.fillStyle = '#f8f9fa';
  ctx.fillRect(0, y0, GUTTER, y1 - y0);
  ctx.fillStyle = '#212529';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  // Labels stop at the gutter's edge: a long one ("dev 1152 · PP 6,9") never runs into the plot.
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, y0, GUTTER - 3, y1 - y0);
  ctx.clip();
  for (const band of layout.bands) {
    if (!rowsInView(band.top, band.bottom - band.top)) continue;
    gutterLines(band).forEach((line, i) => {
      ctx.font =
        i === 0 && !thinBand(band) ? 'bold 11px system-ui, sans-serif' : '10px system-ui, sans-serif';
      ctx.fillStyle = i === 0 ? '#212529' : '#495057';
      ctx.fillText(line, 4, band.top + 8 + i * GUTTER_LINE);
    });
    ctx.fillStyle = '#212529';
    ctx.font = '10px system-ui, sans-serif';
    for (const lane of band.lanes)
      if (lane.stream !== 'compute' && !lane.collapsed && lane.height >= LANE_LABEL_MIN)
        ctx.fillText(lane.stream, 10, lane.top + lane.height / 2);
    if (band.memoryHeight >= LANE_LABEL_MIN) {
      const [peak, base] = memoryLabels(band);
      ctx.fillStyle = band.oom ? CAPACITY_LINE : '#212529';
      if (band.oom) ctx.font = 'bold 10px system-ui, sans-serif';
      ctx.fillText(peak, 10, band.memoryTop + band.memoryHeight / 2 - (base ? 6 : 0));
      ctx.font = '10px system-ui, sans-serif';
      ctx.fillStyle = '#868e96';
      if (base) ctx.fillText(base, 10, band.memoryTop + band.memoryHeight / 2 + 6);
      ctx.fillStyle = '#212529';
    }
  }
  ctx.restore();
  paintAxis(ctx, view);
}

function arrows(
  ctx: CanvasRenderingContext2D,
  pairs: readonly Flow[],
  view: TimeView,
  color: string,
  lineWidth: number,
): void {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = lineWidth;
  for (const [a, b] of pairs) {
    const x0 = view.x(a.ev.startMs);
    const y0 = a.y + a.h / 2;
    const x1 = view.x(b.ev.endMs);
    const y1 = b.y + b.h / 2;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(x1, y1);
    ctx.stroke();
    const ang = Math.atan2(y1 - y0, x1 - x0);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x1 - 6 * Math.cos(ang - 0.4), y1 - 6 * Math.sin(ang - 0.4));
    ctx.lineTo(x1 - 6 * Math.cos(ang + 0.4), y1 - 6 * Math.sin(ang + 0.4));
    ctx.fill();
  }
}

/** The time axis row: also drawn alone on the sticky axis that stays in view while the lanes scroll. */
export function paintAxis(ctx: CanvasRenderingContext2D, view: TimeView): void {
  const { width } = view;
  ctx.fillStyle = '#f8f9fa';
  ctx.fillRect(0, 0, GUTTER, AXIS_HEIGHT);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(GUTTER, 0, width - GUTTER, AXIS_HEIGHT);
  ctx.strokeStyle = '#868e96';
  ctx.fillStyle = '#495057';
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

/** Lanes thinner than this (compact timelines) go without their stream's name. */
export const LANE_LABEL_MIN = 10;
/** Pixels between the gutter's two lines. */
export const GUTTER_LINE = 11;

/**
 * The gutter's lines of a device band: the device, then its stages on a line of their own when
 * the band's compute lane has room for two, so a long label never runs into the plot.
 */
export function gutterLines(band: DeviceBand): string[] {
  const [device, ...rest] = band.label.split(' · ');
  return rest.length > 0 && !thinBand(band) ? [device!, rest.join(' · ')] : [band.label];
}

/** A band whose first lane has no room for two lines (compact timelines): one line, in a smaller font. */
export function thinBand(band: DeviceBand): boolean {
  const first = band.lanes[0];
  return first ? first.height < 8 + GUTTER_LINE + 4 : true;
}

export function labelOf(ev: TimelineEvent, plan: PlanIndex): string {
  const members = ev.members?.map((m) => plan.instruction(m)?.tags ?? {});
  return mbLabel(ev, members);
}

/** SEND → RECV pairs whose span touches the visible window. */
export function visibleTransfers(
  layout: GanttLayout,
  plan: PlanIndex,
  t0: number,
  t1: number,
): [GanttLayout['ops'][number], GanttLayout['ops'][number]][] {
  const out: [GanttLayout['ops'][number], GanttLayout['ops'][number]][] = [];
  for (const [send, recv] of plan.transfers) {
    const a = layout.ops[layout.byId.get(send) ?? -1];
    const b = layout.ops[layout.byId.get(recv) ?? -1];
    if (!a || !b) continue;
    if (b.ev.endMs < t0 || a.ev.startMs > t1) continue;
    out.push([a, b]);
  }
  return out;
}

/**
 * Vertices of a memory step curve over the visible window, at most four per pixel column (in,
 * lowest, highest, out), however many allocations fall into it.
 */
export function stepVertices(
  points: readonly [number, number][],
  view: TimeView,
  yOf: (bytes: number) => number,
  endMs: number,
): [number, number][] {
  const out: [number, number][] = [];
  let col = Number.NaN;
  let enter = Number.NaN;
  let lo = 0;
  let hi = 0;
  let last = Number.NaN;
  let lastEnd = 0;
  const flush = () => {
    if (Number.isNaN(col)) return;
    out.push([col, enter]);
    if (lo < hi) out.push([col, lo], [col, hi]);
    out.push([col, last]);
  };
  for (let k = 0; k < points.length; k++) {
    const [t, bytes] = points[k]!;
    const next = points[k + 1]?.[0] ?? endMs;
    if (next < view.t0 || t > view.t1) continue;
    const c = Math.round(view.x(t));
    const y = yOf(bytes);
    if (c !== col) {
      flush();
      col = c;
      enter = Number.isNaN(last) ? y : last;
      lo = hi = y;
    } else {
      lo = Math.min(lo, y);
      hi = Math.max(hi, y);
    }
    last = y;
    lastEnd = next;
  }
  flush();
  if (!Number.isNaN(col)) out.push([view.x(lastEnd), last]);
  return out;
}

/** Gutter text of a memory strip: the device's peak, flagged when it exceeds the capacity. */
export function memoryLabel(band: DeviceBand): string {
  return `${band.oom ? 'OOM ' : 'peak '}${formatBytes(band.peakBytes)}`;
}

/** The peak's line and, when the strip starts above 0, the static base it starts from. */
export function memoryLabels(band: DeviceBand): [string, string | null] {
  return [memoryLabel(band), band.memoryBaseBytes > 0 ? `from ${formatBytes(band.memoryBaseBytes)}` : null];
}
