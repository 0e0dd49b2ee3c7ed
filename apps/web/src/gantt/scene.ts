/**
 * What a timeline draws, as marks in pixels: one description that the SVG renderer (GanttSvg.tsx)
 * turns into elements and the canvas renderer (canvasPaint.ts) into paint calls, so the two look
 * the same without being kept in step by hand. Pure: a layout, a view and the stretch drawn in,
 * marks out; each renderer only decides how a mark is put on its surface.
 */
import type { TimelineEvent } from '@stagecraft/sim';
import {
  ARROW,
  CAPACITY_LINE,
  DROP_OUTLINE,
  FLOW,
  labelColor,
  MICROBATCH_OUTLINE,
  opColor,
  SELECTION_OUTLINE,
  TEXT,
  TEXT_MUTED,
  TEXT_SECONDARY,
} from './colors.ts';
import type { Flow } from './flows.ts';
import { fitText } from './gutterText.ts';
import { formatBytes, mbLabel, memberOp } from './label.ts';
import { type DeviceBand, type GanttLayout, GUTTER, memoryY, type PlacedOp } from './layout.ts';
import type { PlanIndex } from './planIndex.ts';
import type { TimeView } from './view.ts';

/**
 * The stretch a renderer draws: times [t0, t1] and pixels [x0, x1]. The canvas draws what is in
 * view; the SVG a view's width more on each side, so a pan moves it without a render.
 */
export interface Stretch {
  t0: number;
  t1: number;
  x0: number;
  x1: number;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface TextMark {
  text: string;
  x: number;
  y: number;
  color: string;
  size: 10 | 11;
  bold: boolean;
}

/** Lanes thinner than this (compact timelines) go without their stream's name. */
export const LANE_LABEL_MIN = 10;
/** Pixels between the gutter's two lines. */
export const GUTTER_LINE = 11;
/** Ops at least this wide and tall carry their label. */
const LABEL_MIN_WIDTH = 14;
const LABEL_MIN_HEIGHT = 10;
/** Narrower overlapped units go without their outline: it would cover their colours. */
const OUTLINE_MIN_WIDTH = 3;

/** A bubble's box in its device's compute lane, or null when it lies outside the stretch. */
export function bubbleBox(layout: GanttLayout, view: TimeView, index: number, stretch: Stretch): Box | null {
  const b = layout.bubbles[index]!;
  const lane = layout.lanes[layout.bubbleLane[index]!];
  if (!lane || b.endMs < stretch.t0 || b.startMs > stretch.t1) return null;
  const x = view.x(b.startMs);
  return { x, y: lane.top, w: view.x(b.endMs) - x, h: lane.height };
}

/** An op's box: at least a pixel, with a half-pixel gap before the next op of its row. */
export function opBox(o: PlacedOp, view: TimeView): Box {
  const x = view.x(o.ev.startMs);
  const w = Math.max(1, view.x(o.ev.endMs) - x - (o.ev.endMs > o.ev.startMs ? 0.5 : 0));
  return { x, y: o.y, w, h: Math.max(1, o.h - 1) };
}

/** An op as drawn in its box: one fill, or one per member of an overlapped unit; its outline and label. */
export interface OpMark {
  fills: { color: string; y: number; h: number }[];
  /** An overlapped unit's outline, inset half a pixel. */
  outline: Box | null;
  label: TextMark | null;
}

export function opMark(o: PlacedOp, box: Box, plan: PlanIndex): OpMark {
  const { x, y, w, h } = box;
  const members = o.ev.members;
  let fills: OpMark['fills'];
  let outline: Box | null = null;
  if (members && members.length > 1) {
    const part = h / members.length;
    fills = members.map((m, k) => ({
      color: opColor(memberOp(m), o.memberChunks?.[k] ?? 0),
      y: y + k * part,
      h: part,
    }));
    if (w >= OUTLINE_MIN_WIDTH) outline = { x: x + 0.5, y: y + 0.5, w: Math.max(0, w - 1), h: h - 1 };
  } else fills = [{ color: opColor(o.ev.op, o.chunk), y, h }];
  const text = w >= LABEL_MIN_WIDTH && h >= LABEL_MIN_HEIGHT ? labelOf(o.ev, plan) : '';
  const label = text
    ? {
        text,
        x: x + w / 2,
        y: y + h / 2,
        color: labelColor(members ? memberOp(members[0]!) : o.ev.op),
        size: 10 as const,
        bold: false,
      }
    : null;
  return { fills, outline, label };
}

export function labelOf(ev: TimelineEvent, plan: PlanIndex): string {
  const members = ev.members?.map((m) => plan.instruction(m)?.tags ?? {});
  return mbLabel(ev, members);
}

/** An outline around the selected op, the op a drag would drop on, or an op of the hovered microbatch. */
export interface Highlight extends Box {
  kind: 'selection' | 'drop' | 'microbatch';
  color: string;
  dash: number[];
}

export function highlights(
  layout: GanttLayout,
  view: TimeView,
  selection: string | null,
  dropTarget: number,
  hover = -1,
): Highlight[] {
  const out: Highlight[] = [];
  const add = (index: number, kind: Highlight['kind'], color: string, dash: number[]) => {
    const o = layout.ops[index];
    if (!o) return;
    const x = view.x(o.ev.startMs);
    out.push({
      x: x - 1,
      y: o.y - 1,
      w: Math.max(1, view.x(o.ev.endMs) - x) + 2,
      h: o.h + 1,
      kind,
      color,
      dash,
    });
  };
  // Under the selection's and the drop's outlines, which stay visible over it.
  for (const i of microbatchOps(layout, hover)) add(i, 'microbatch', MICROBATCH_OUTLINE, []);
  if (selection !== null) add(layout.byId.get(selection) ?? -1, 'selection', SELECTION_OUTLINE, []);
  add(dropTarget, 'drop', DROP_OUTLINE, [3, 2]);
  return out;
}

/** The microbatch of an op as its label prints it (`3`, DualPipe's second direction `3′`), or null. */
function microbatchOf(tags: Record<string, number | string>): string | null {
  return tags.MB === undefined ? null : `${tags.MB}${tags.DIR === 1 ? '′' : ''}`;
}

/** Ops by microbatch, made once per layout, on the first hover. */
const byMicrobatch = new WeakMap<GanttLayout, Map<string, number[]>>();

/** Every op of the same microbatch as op `index`, on every device (none for an op of no microbatch). */
export function microbatchOps(layout: GanttLayout, index: number): readonly number[] {
  const o = layout.ops[index];
  const mb = o ? microbatchOf(o.ev.tags) : null;
  if (mb === null) return [];
  let groups = byMicrobatch.get(layout);
  if (!groups) {
    groups = new Map();
    layout.ops.forEach((p, i) => {
      const key = microbatchOf(p.ev.tags);
      if (key === null) return;
      const list = groups!.get(key);
      if (list) list.push(i);
      else groups!.set(key, [i]);
    });
    byMicrobatch.set(layout, groups);
  }
  return groups.get(mb) ?? [];
}

/** A transfer drawn from its SEND's start to its RECV's end, with an arrowhead at the RECV. */
export interface TransferMark {
  /** `send>recv`, the ids of its two ops. */
  key: string;
  /** Every transfer (the arrows switch) or the selected op's flows. */
  kind: 'arrow' | 'flow';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  color: string;
  width: number;
}

export function transferMarks(
  layout: GanttLayout,
  plan: PlanIndex,
  view: TimeView,
  stretch: Stretch,
  showArrows: boolean,
  flows: readonly Flow[],
): TransferMark[] {
  const mark = ([a, b]: Flow, kind: TransferMark['kind']): TransferMark => ({
    key: `${a.ev.id}>${b.ev.id}`,
    kind,
    x1: view.x(a.ev.startMs),
    y1: a.y + a.h / 2,
    x2: view.x(b.ev.endMs),
    y2: b.y + b.h / 2,
    color: kind === 'flow' ? FLOW : ARROW,
    width: kind === 'flow' ? 2 : 1,
  });
  const arrows = showArrows ? visibleTransfers(layout, plan, stretch.t0, stretch.t1) : [];
  return [...arrows.map((f) => mark(f, 'arrow')), ...flows.map((f) => mark(f, 'flow'))];
}

/** SEND → RECV pairs whose span touches [t0, t1]. */
export function visibleTransfers(layout: GanttLayout, plan: PlanIndex, t0: number, t1: number): Flow[] {
  const out: Flow[] = [];
  for (const [send, recv] of plan.transfers) {
    const a = layout.ops[layout.byId.get(send) ?? -1];
    const b = layout.ops[layout.byId.get(recv) ?? -1];
    if (!a || !b) continue;
    if (b.ev.endMs < t0 || a.ev.startMs > t1) continue;
    out.push([a, b]);
  }
  return out;
}

/** On an axis shared with longer steps (Compare, a measured step), the pixel where this one ends; else null. */
export function stepEndX(layout: GanttLayout, view: TimeView): number | null {
  return view.domainMs > layout.makespanMs * (1 + 1e-9) ? view.x(layout.makespanMs) + 0.5 : null;
}

/** A device's memory strip: its step curve over the stretch, the area under it, the capacity line. */
export interface MemoryMark {
  /** The strip tinted over its whole width (the device is over its capacity). */
  oom: Box | null;
  vertices: [number, number][];
  /** Where the area under the curve closes: the strip's base. */
  baseY: number;
  capacityY: number | null;
}

export function memoryMark(band: DeviceBand, view: TimeView, stretch: Stretch, endMs: number): MemoryMark {
  const yOf = (bytes: number) => memoryY(band, bytes);
  return {
    oom: band.oom
      ? { x: stretch.x0, y: band.memoryTop, w: stretch.x1 - stretch.x0, h: band.memoryHeight }
      : null,
    vertices: stepVertices(band.memory, view, yOf, endMs, stretch),
    baseY: yOf(band.memoryBaseBytes),
    capacityY: band.capacityBytes === undefined ? null : yOf(band.capacityBytes),
  };
}

/**
 * Vertices of a memory step curve over the stretch (the visible window by default), at most four
 * per pixel column (in, lowest, highest, out), however many allocations fall into it.
 */
export function stepVertices(
  points: readonly [number, number][],
  view: TimeView,
  yOf: (bytes: number) => number,
  endMs: number,
  stretch: Pick<Stretch, 't0' | 't1'> = view,
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
    if (next < stretch.t0 || t > stretch.t1) continue;
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

/** What a device's gutter says: its name (and stages), each folded-out lane's stream, its memory peak. */
export interface GutterMark {
  lines: TextMark[];
  streams: { lane: string; text: TextMark | null }[];
  /** The peak (flagged OOM over the capacity), then the static base it is drawn from. */
  memory: { peak: TextMark | null; base: TextMark | null };
}

/** Where the gutter's device lines start, and the memory and stream labels (indented under them). */
const LINE_X = 4;
const INDENT_X = 10;
/** Pixels of text before the gutter's clip (3 px short of the plot) and a pixel's margin. */
const roomFrom = (x: number) => GUTTER - 3 - 1 - x;

export function gutterMark(band: DeviceBand): GutterMark {
  const thin = thinBand(band);
  const lines = gutterLines(band).map((text, i) => ({
    text,
    x: LINE_X,
    y: band.top + 8 + i * GUTTER_LINE,
    color: i === 0 ? TEXT : TEXT_SECONDARY,
    size: i === 0 && !thin ? (11 as const) : (10 as const),
    bold: i === 0 && !thin,
  }));
  const streams = band.lanes.map((lane) => ({
    lane: `${lane.device}/${lane.stream}`,
    text:
      lane.stream !== 'compute' && !lane.collapsed && lane.height >= LANE_LABEL_MIN
        ? {
            text: fitText(lane.stream, roomFrom(INDENT_X), { size: 10, bold: false }),
            x: INDENT_X,
            y: lane.top + lane.height / 2,
            color: TEXT,
            size: 10 as const,
            bold: false,
          }
        : null,
  }));
  const room = band.memoryHeight >= LANE_LABEL_MIN;
  const [fullPeak, fullBase] = memoryLabels(band);
  const peak = fitText(fullPeak, roomFrom(INDENT_X), { size: 10, bold: band.oom });
  const base = fullBase && fitText(fullBase, roomFrom(INDENT_X), { size: 10, bold: false });
  const middle = band.memoryTop + band.memoryHeight / 2;
  return {
    lines,
    streams,
    memory: {
      peak: room
        ? {
            text: peak,
            x: INDENT_X,
            y: middle - (base ? 6 : 0),
            color: band.oom ? CAPACITY_LINE : TEXT,
            size: 10,
            bold: band.oom,
          }
        : null,
      base:
        room && base
          ? { text: base, x: INDENT_X, y: middle + 6, color: TEXT_MUTED, size: 10, bold: false }
          : null,
    },
  };
}

/**
 * The gutter's lines of a device band, each fitted to the gutter (gutterText.ts): the device with
 * its stages, then its mesh coordinates, when the band's compute lane has room for two lines
 * ("dev 0 · PP 0,16" over "dp 0–63 · tp 0–7"); the stages go to the second line when the first
 * has no room for them. A compact band has one line. The full label is the gutter's hover text.
 */
export function gutterLines(band: DeviceBand): string[] {
  const [device, ...rest] = band.label.split(' · ');
  const first = { size: 11, bold: true };
  const other = { size: 10, bold: false };
  const room = roomFrom(LINE_X);
  if (rest.length === 0) return [fitText(band.label, room, first)];
  if (thinBand(band)) return [fitText(band.label, room, other)];
  const stages = rest[0]!.startsWith('PP ') ? rest[0]! : undefined;
  const mesh = stages ? rest.slice(1) : rest;
  if (stages && mesh.length > 0) {
    const line = `${device} · ${stages}`;
    if (fitText(line, room, first) === line) return [line, fitText(mesh.join(' · '), room, other)];
  }
  return [fitText(device!, room, first), fitText(rest.join(' · '), room, other)];
}

/** What the gutter of a band says in full, on hover: its label and its memory. */
export function gutterTitle(band: DeviceBand): string {
  const [peak, base] = memoryLabels(band);
  const cap = band.capacityBytes !== undefined ? ` of ${formatBytes(band.capacityBytes)}` : '';
  return `${band.label}\n${peak}${cap}${base ? ` (${base})` : ''}`;
}

/** A band whose first lane has no room for two lines (compact timelines): one line, in a smaller font. */
export function thinBand(band: DeviceBand): boolean {
  const first = band.lanes[0];
  return first ? first.height < 8 + GUTTER_LINE + 4 : true;
}

/** Gutter text of a memory strip: the device's peak, flagged when it exceeds the capacity. */
export function memoryLabel(band: DeviceBand): string {
  return `${band.oom ? 'OOM ' : 'peak '}${formatBytes(band.peakBytes)}`;
}

/** The peak's line and, when the strip starts above 0, the static base it starts from. */
export function memoryLabels(band: DeviceBand): [string, string | null] {
  return [memoryLabel(band), band.memoryBaseBytes > 0 ? `from ${formatBytes(band.memoryBaseBytes)}` : null];
}

/** A text mark's CSS font, as the canvas takes it (the SVG sets size and weight apart). */
export function fontOf(t: Pick<TextMark, 'size' | 'bold'>): string {
  return `${t.bold ? 'bold ' : ''}${t.size}px system-ui, sans-serif`;
}
