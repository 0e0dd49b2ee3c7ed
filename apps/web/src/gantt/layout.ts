/**
 * Where everything of a timeline goes, in time units and pixels of height: a band per device with
 * a lane per stream (overlapping events of a stream, such as posted RECVs, packed into rows), the
 * idle spans of each device's compute, and the memory strip beneath. Pure, so the SVG and the
 * canvas renderers draw from the same numbers and tests can check them without a DOM.
 */
import { meshLabel, meshRangeLabel } from '@stagecraft/ir';
import type { Simulation, TimelineEvent } from '@stagecraft/sim';
import type { TimelinePlan } from './timelinePlan.ts';

export const AXIS_HEIGHT = 22;
/** Room for a mesh device's two lines ("dev 1152 · PP 6,9", "dp 0–63 · tp 0–7") and "OOM 101.8 GiB". */
export const GUTTER = 120;
export const COMPUTE_LANE = 26;
const OTHER_LANE = 16;
const MEMORY_STRIP = 34;
/** A collapsed lane keeps a thin strip, so its ops (and arrows to them) still show where they run. */
export const COLLAPSED_LANE = 4;
const BAND_GAP = 8;

/** Lane heights of the compact timeline: ops stay clickable, labels give way to colour. */
const COMPACT = { compute: 12, other: 4, memory: 8, gap: 3, laneGap: 1 } as const;
const MAX_ROWS = 4;

const COMPUTE_OPS = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP']);

export function isComputeEvent(ev: TimelineEvent): boolean {
  return COMPUTE_OPS.has(ev.op);
}

export interface Lane {
  index: number;
  device: number;
  stream: string;
  top: number;
  height: number;
  rows: number;
  /** Indices into `ops`, by start time. */
  ops: Int32Array;
  /** Longest event of the lane: events starting this much before a window may still reach into it. */
  maxDurMs: number;
  /** Folded to a thin strip, without its label. */
  collapsed: boolean;
  /** Holds the device's compute (the lane bubbles and range readings count). */
  compute: boolean;
}

export interface DeviceBand {
  device: number;
  label: string;
  top: number;
  lanes: Lane[];
  memoryTop: number;
  memoryHeight: number;
  bottom: number;
  /**
   * Bytes at the strip's top and bottom. Alone, a timeline draws each device from its static base
   * (parameters, gradients, optimizer state), every strip spanning the largest activation swing of
   * any device, so the activations fill the strips and compare: 8 GiB of static state under a
   * 9 GiB peak left a flat line. Timelines compared at one scale (memoryScaleBytes) draw from 0.
   */
  memoryScaleBytes: number;
  memoryBaseBytes: number;
  /** Over its capacity: the strip is tinted and its label says OOM. */
  oom: boolean;
  peakBytes: number;
  capacityBytes: number | undefined;
  memory: [number, number][];
}

export interface PlacedOp {
  ev: TimelineEvent;
  /** Which of the device's stages the op belongs to (0 for the first, or for ops of none). */
  chunk: number;
  /** The same for each member of an overlapped unit. */
  memberChunks?: number[];
  lane: number;
  /** Top and height in pixels (rows split a lane). */
  y: number;
  h: number;
}

export interface IdleSpan {
  device: number;
  startMs: number;
  endMs: number;
}

export interface GanttLayout {
  bands: DeviceBand[];
  lanes: Lane[];
  ops: PlacedOp[];
  /** Index into `ops` of an instruction id (members of an overlapped unit included). */
  readonly byId: ReadonlyMap<string, number>;
  bubbles: IdleSpan[];
  /** Lane each bubble is drawn in (the device's compute lane). */
  bubbleLane: number[];
  height: number;
  makespanMs: number;
}

export interface LayoutOptions {
  memoryCapacityBytes?: ((device: number) => number | undefined) | undefined;
  /** Bytes at the top of every memory strip, so several timelines compare at one scale. */
  memoryScaleBytes?: number | undefined;
  /** Thinner lanes, so four timelines fit one screen in Compare. */
  compact?: boolean | undefined;
  /** Streams whose lanes are folded to a thin strip (the p2p lanes, say). */
  collapsedStreams?: ReadonlySet<string> | undefined;
  /** Leave the memory strips out. */
  memoryCollapsed?: boolean | undefined;
}

export function layoutGantt(sim: Simulation, plan: TimelinePlan, options: LayoutOptions = {}): GanttLayout {
  const steps = layoutSteps(sim, plan, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The layout in steps, a lane at a time: a big timeline is laid out over several tasks
 * (slicedLayout.ts), so the page answers between them.
 */
export function* layoutSteps(
  sim: Simulation,
  plan: TimelinePlan,
  options: LayoutOptions = {},
): Generator<void, GanttLayout, void> {
  const g = groupEvents(sim.timeline ?? [], plan);
  yield;
  const memoryOf = new Map((sim.memory ?? []).map((m) => [m.device, m.points]));
  const staticOf = new Map(sim.devices.map((d) => [d.device, d.staticBytes]));
  const oomOf = new Map(sim.devices.map((d) => [d.device, d.oom === true]));
  const sizes = options.compact ? COMPACT : NORMAL;
  const bands: DeviceBand[] = [];
  const lanes: Lane[] = [];
  const ops: PlacedOp[] = [];
  let y = AXIS_HEIGHT;
  for (const device of [...g.streamsOf.keys()].sort((a, b) => a - b)) {
    const top = y;
    const bandLanes: Lane[] = [];
    const stages = g.stagesOf.get(device);
    for (const stream of g.streamsOf.get(device)!) {
      const events = g.eventsOf.get(device)?.get(stream) ?? [];
      const lane = placeLane(
        events,
        { device, stream, stages, top: y, index: lanes.length },
        g,
        ops,
        sizes,
        options,
      );
      lanes.push(lane);
      bandLanes.push(lane);
      y += lane.height + sizes.laneGap;
      yield;
    }
    const memory = memoryOf.get(device) ?? [];
    const strip = memoryStrip(
      memory,
      options.memoryCapacityBytes?.(device),
      staticOf.get(device) ?? 0,
      options,
    );
    const memoryTop = y;
    const memoryHeight = memory.length > 0 && !options.memoryCollapsed ? sizes.memory : 0;
    y += memoryHeight;
    bands.push({
      device,
      label: `dev ${device}${stages && stages.length > 0 ? ` · PP ${stages.join(',')}` : ''}${g.meshOf.get(device) ?? ''}`,
      top,
      lanes: bandLanes,
      memoryTop,
      memoryHeight,
      bottom: y,
      ...strip,
      oom: strip.oom || oomOf.get(device) === true,
      memory,
    });
    y += sizes.gap;
  }
  if (options.memoryScaleBytes === undefined) scaleStripsAlike(bands);
  yield;
  return withBubbles(sim, bands, lanes, ops, y);
}

/** Lane and strip heights in pixels, as laid out normally. */
const NORMAL = {
  compute: COMPUTE_LANE,
  other: OTHER_LANE,
  memory: MEMORY_STRIP,
  gap: BAND_GAP,
  laneGap: 2,
} as const;

type Sizes = typeof NORMAL | typeof COMPACT;

/** The timeline's events grouped per device and stream, with what the plan says of each device. */
interface Grouped {
  streamsOf: Map<number, string[]>;
  stagesOf: Map<number, readonly number[]>;
  /** The gutter's mesh coordinates of a device (` · dp 0–63 · tp 0–7`). */
  meshOf: Map<number, string>;
  /** The tags of each member of an overlapped unit, by the unit's id. */
  memberTags: Map<string, Record<string, number | string>[]>;
  eventsOf: Map<number, Map<string, TimelineEvent[]>>;
}

/**
 * Runs on the main thread before the first frame of every new result: one pass over the events,
 * grouped per device and stream without string keys, and no per-op spread or closure.
 */
function groupEvents(timeline: readonly TimelineEvent[], plan: TimelinePlan): Grouped {
  const streamsOf = new Map<number, string[]>();
  const stagesOf = new Map<number, readonly number[]>();
  const meshOf = new Map<number, string>();
  const memberTags = new Map<string, Record<string, number | string>[]>();
  for (const d of plan.devices) {
    streamsOf.set(
      d.device,
      d.streams.map((s) => s.stream),
    );
    stagesOf.set(d.device, d.stages);
    // Its mesh coordinates; a group lowered once stands for every member (`dp 0–63 · tp 0–7`).
    const mesh = d.group !== undefined && d.group >= 0 ? plan.meshes?.[d.group] : undefined;
    if (mesh)
      meshOf.set(
        d.device,
        ` · ${d.replicas?.length ? meshRangeLabel(mesh) : meshLabel(mesh, plan.groups?.[d.group!]?.indexOf(d.device) ?? 0)}`,
      );
    for (const s of d.streams)
      for (const i of s.instructions)
        if (i.op === 'OVERLAP')
          memberTags.set(
            i.id,
            i.members.map((m) => m.tags),
          );
  }
  const eventsOf = new Map<number, Map<string, TimelineEvent[]>>();
  for (const ev of timeline) {
    let byStream = eventsOf.get(ev.device);
    if (!byStream) eventsOf.set(ev.device, (byStream = new Map()));
    let list = byStream.get(ev.stream);
    if (!list) {
      byStream.set(ev.stream, (list = []));
      let s = streamsOf.get(ev.device);
      if (!s) streamsOf.set(ev.device, (s = []));
      if (!s.includes(ev.stream)) s.push(ev.stream);
    }
    list.push(ev);
  }
  return { streamsOf, stagesOf, meshOf, memberTags, eventsOf };
}

/** Which of the device's stages tagged work belongs to (0 for the first, or for work of none). */
function chunkOf(stages: readonly number[] | undefined, tags: Record<string, number | string>): number {
  const pp = tags.PP;
  const k = typeof pp === 'number' && stages ? stages.indexOf(pp) : -1;
  return Math.max(k, 0);
}

/** One stream's lane at `top`: its events placed in rows (appended to `ops`). */
function placeLane(
  events: TimelineEvent[],
  at: { device: number; stream: string; stages: readonly number[] | undefined; top: number; index: number },
  g: Grouped,
  ops: PlacedOp[],
  sizes: Sizes,
  options: LayoutOptions,
): Lane {
  const { device, stream, stages, top: y, index } = at;
  // The simulator's timeline comes by start time: the sort (its comparator called once per
  // event, the largest cost of this layout at 70k events) only for other callers' events.
  if (!byStart(events)) events.sort((a, b) => a.startMs - b.startMs);
  const computeLane = stream === 'compute' || events.some(isComputeEvent);
  const collapsed = !computeLane && options.collapsedStreams?.has(stream) === true;
  const height = computeLane
    ? sizes.compute
    : collapsed
      ? Math.min(COLLAPSED_LANE, sizes.other)
      : sizes.other;
  const rowOf = collapsed ? new Int32Array(events.length) : packRows(events);
  let rows = 1;
  for (let k = 0; k < rowOf.length; k++) if (rowOf[k]! + 1 > rows) rows = rowOf[k]! + 1;
  const rh = height / rows;
  const laneOps = new Int32Array(events.length);
  let maxDurMs = 0;
  for (let k = 0; k < events.length; k++) {
    const ev = events[k]!;
    laneOps[k] = ops.length;
    const op: PlacedOp = { ev, chunk: chunkOf(stages, ev.tags), lane: index, y: y + rowOf[k]! * rh, h: rh };
    if (ev.members) {
      const members = g.memberTags.get(ev.id);
      if (members) op.memberChunks = members.map((t) => chunkOf(stages, t));
    }
    ops.push(op);
    if (ev.endMs - ev.startMs > maxDurMs) maxDurMs = ev.endMs - ev.startMs;
  }
  return {
    index,
    device,
    stream,
    top: y,
    height,
    rows,
    ops: laneOps,
    maxDurMs,
    collapsed,
    compute: computeLane,
  };
}

/** A device's memory strip: its peak, whether it crosses the capacity, and the bytes at its top and bottom. */
function memoryStrip(
  memory: readonly [number, number][],
  capacityBytes: number | undefined,
  staticBytes: number,
  options: LayoutOptions,
): Pick<DeviceBand, 'memoryScaleBytes' | 'memoryBaseBytes' | 'oom' | 'peakBytes' | 'capacityBytes'> {
  let peak = 0;
  let low = Number.POSITIVE_INFINITY;
  for (const p of memory) {
    if (p[1] > peak) peak = p[1];
    if (p[1] < low) low = p[1];
  }
  const shared = options.memoryScaleBytes !== undefined;
  const base = shared ? 0 : Math.min(staticBytes, low);
  // Alone: base to peak (the capacity too when it is crossed, so the line shows where).
  const scaleTop = shared
    ? Math.max(peak, capacityBytes ?? 0, options.memoryScaleBytes ?? 0) * 1.05
    : base + Math.max(peak - base, 1) * 1.08;
  return {
    memoryScaleBytes: scaleTop || 1,
    memoryBaseBytes: base,
    oom: capacityBytes !== undefined && peak > capacityBytes,
    peakBytes: peak,
    capacityBytes,
  };
}

/**
 * Alone, every strip spans the largest activation swing of any device above its own base, so the
 * strips compare: a stage that stashes four microbatches reads four times as high as one with one.
 */
function scaleStripsAlike(bands: DeviceBand[]): void {
  let swing = 1;
  for (const b of bands) if (b.peakBytes - b.memoryBaseBytes > swing) swing = b.peakBytes - b.memoryBaseBytes;
  for (const b of bands) {
    b.memoryScaleBytes = b.memoryBaseBytes + swing * 1.08;
    // A crossed capacity stays inside the strip.
    if (b.oom && b.capacityBytes !== undefined && b.capacityBytes < b.memoryBaseBytes)
      b.memoryBaseBytes = Math.max(0, b.capacityBytes - swing * 0.08);
  }
}

/** The layout with each device's bubbles in its compute lane. */
function withBubbles(
  sim: Simulation,
  bands: DeviceBand[],
  lanes: Lane[],
  ops: PlacedOp[],
  height: number,
): GanttLayout {
  const bubbles = idleSpans(sim);
  const computeLaneOf = new Map<number, number>();
  for (const l of lanes) {
    if (computeLaneOf.has(l.device)) continue;
    if (l.compute) computeLaneOf.set(l.device, l.index);
  }
  let byId: Map<string, number> | undefined;
  return {
    bands,
    lanes,
    ops,
    // Built on first use (a selection, arrows, scripts): indexing 20k ids of a freshly received
    // result cost its first frame more than placing the ops.
    get byId() {
      byId ??= indexOps(ops);
      return byId;
    },
    bubbles,
    bubbleLane: bubbles.map((b) => computeLaneOf.get(b.device) ?? -1),
    height,
    makespanMs: sim.makespanMs,
  };
}

function byStart(events: readonly TimelineEvent[]): boolean {
  for (let k = 1; k < events.length; k++) if (events[k]!.startMs < events[k - 1]!.startMs) return false;
  return true;
}

function indexOps(ops: readonly PlacedOp[]): Map<string, number> {
  const byId = new Map<string, number>();
  for (let i = 0; i < ops.length; i++) {
    const ev = ops[i]!.ev;
    byId.set(ev.id, i);
    if (ev.members) for (const m of ev.members) if (!byId.has(m)) byId.set(m, i);
  }
  return byId;
}

/** Greedy interval packing: each event takes the first row free at its start (capped). */
function packRows(sorted: readonly TimelineEvent[]): Int32Array {
  const rowOf = new Int32Array(sorted.length);
  const ends: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    const ev = sorted[k]!;
    let r = -1;
    for (let j = 0; j < ends.length; j++)
      if (ends[j]! <= ev.startMs + 1e-9) {
        r = j;
        break;
      }
    if (r < 0) {
      if (ends.length < MAX_ROWS) r = ends.push(0) - 1;
      else {
        r = 0;
        for (let j = 1; j < ends.length; j++) if (ends[j]! < ends[r]!) r = j;
      }
    }
    ends[r] = ev.endMs;
    rowOf[k] = r;
  }
  return rowOf;
}

/**
 * Idle spans of each device's compute over the step [0, makespan]: the bubbles. Their sum per
 * device is the simulator's idleMs.
 */
export function idleSpans(sim: Simulation): IdleSpan[] {
  // Runs before the first frame of every result: busy spans go flat into one array per device
  // (no pair per event to collect), and are sorted only when the timeline did not come by start.
  const out: IdleSpan[] = [];
  const busy = new Map<number, number[]>();
  const unsorted = new Set<number>();
  for (const d of sim.devices) busy.set(d.device, []);
  for (const ev of sim.timeline ?? []) {
    if (!COMPUTE_OPS.has(ev.op)) continue;
    let list = busy.get(ev.device);
    if (!list) busy.set(ev.device, (list = []));
    if (list.length > 0 && list[list.length - 2]! > ev.startMs) unsorted.add(ev.device);
    list.push(ev.startMs, ev.endMs);
  }
  const eps = 1e-9;
  for (const device of [...busy.keys()].sort((a, b) => a - b)) {
    const flat = busy.get(device)!;
    const n = flat.length / 2;
    let order: Int32Array | null = null;
    if (unsorted.has(device)) {
      order = new Int32Array(n);
      for (let k = 0; k < n; k++) order[k] = k;
      order.sort((a, b) => flat[2 * a]! - flat[2 * b]!);
    }
    let t = 0;
    for (let k = 0; k < n; k++) {
      const j = order ? order[k]! : k;
      const s = flat[2 * j]!;
      const e = flat[2 * j + 1]!;
      if (s > t + eps) out.push({ device, startMs: t, endMs: s });
      if (e > t) t = e;
    }
    if (sim.makespanMs > t + eps) out.push({ device, startMs: t, endMs: sim.makespanMs });
  }
  return out;
}

/** Height in the strip of a byte count, clamped to the strip (a capacity below the base sits at its foot). */
export function memoryY(band: DeviceBand, bytes: number): number {
  const range = band.memoryScaleBytes - band.memoryBaseBytes || 1;
  const f = Math.min(1, Math.max(0, (bytes - band.memoryBaseBytes) / range));
  return band.memoryTop + band.memoryHeight - 3 - f * (band.memoryHeight - 6);
}

/**
 * Indices of a lane's ops that overlap [t0, t1], by start time (binary search, no scan), at most
 * `limit` of them.
 */
export function opsInWindow(
  layout: GanttLayout,
  lane: Lane,
  t0: number,
  t1: number,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const idx = lane.ops;
  const from = t0 - lane.maxDurMs;
  let lo = 0;
  let hi = idx.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (layout.ops[idx[mid]!]!.ev.startMs < from) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let k = lo; k < idx.length && out.length < limit; k++) {
    const o = layout.ops[idx[k]!]!;
    if (o.ev.startMs > t1) break;
    if (o.ev.endMs >= t0) out.push(idx[k]!);
  }
  return out;
}
