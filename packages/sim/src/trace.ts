/**
 * Chrome's Trace Event Format, as Perfetto and chrome://tracing read it, from a plan and its
 * simulated step: one process per device (named with its stages), one thread per stream, one
 * complete (`X`) event per instruction with its tags, directive provenance, FLOPs and bytes in
 * `args`, a flow arrow from every SEND to its RECV, and a memory counter per device.
 *
 * Times are microseconds. Slices on one thread never overlap, which Perfetto's slice nesting
 * relies on: an overlapped F&B pair is one slice (its members in `args`), and a RECV, which is
 * posted and leaves its stream free, is drawn while its data is on the wire (from the SEND's start,
 * or its own post, to its end) on a receive lane of its stream, a new lane whenever two overlap.
 */
import type { Instruction, PathSegment, Plan } from '@stagecraft/ir';
import { formatPath, meshLabel, meshRangeLabel } from '@stagecraft/ir';
import type { Simulation, TimelineEvent } from './types.ts';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'M' | 'C' | 's' | 'f';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  id?: number;
  bp?: 'e';
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ms';
  /** `planFingerprint`: the plan a measured step ran (the runtime's traces only). */
  otherData: { format: string; name: string; makespanMs: number; planFingerprint?: string };
}

export interface TraceOptions {
  /** The expanded program, to name the directive each instruction came from. */
  program?: readonly { path: PathSegment[]; directive: { op: string } }[];
}

/** Milliseconds to microseconds, kept to the nanosecond so equal times stay equal. */
const us = (ms: number) => Math.round(ms * 1e6) / 1e3;

const CATEGORY: Record<string, string> = {
  F: 'compute',
  B: 'compute',
  BI: 'compute',
  BW: 'compute',
  RECOMPUTE: 'compute',
  UPD: 'compute',
  OVERLAP: 'compute',
  SEND: 'p2p',
  RECV: 'p2p',
  ALL_REDUCE: 'collective',
  REDUCE_SCATTER: 'collective',
  ALL_GATHER: 'collective',
  ALL_TO_ALL: 'collective',
  OFFLOAD: 'memory',
  RELOAD: 'memory',
};

export function chromeTrace(plan: Plan, sim: Simulation, options: TraceOptions = {}): ChromeTrace {
  const meta: TraceEvent[] = [];
  const threads = deviceThreads(plan, meta);
  const provenanceOf = provenances(options);
  const { events, recvs, flows } = streamEvents(sim.timeline ?? [], threads, provenanceOf);
  receiveEvents(
    sim.timeline ?? [],
    recvs,
    flows,
    threads,
    new ReceiveLanes(threads, meta),
    provenanceOf,
    events,
  );
  for (const m of sim.memory ?? []) {
    for (const [t, bytes] of m.points)
      events.push({
        name: 'memory',
        cat: 'memory',
        ph: 'C',
        pid: m.device,
        tid: 0,
        ts: us(t),
        args: { bytes },
      });
  }
  return {
    traceEvents: [...meta, ...events],
    displayTimeUnit: 'ms',
    otherData: { format: 'stagecraft chrome-trace', name: plan.name, makespanMs: sim.makespanMs },
  };
}

/** Instruction and thread of each (device, stream, id), and the next free thread of each device. */
interface DeviceThreads {
  readonly byKey: Map<string, Instruction>;
  readonly tidOf: Map<string, number>;
  readonly nextTid: Map<number, number>;
}

/** A process per device, named with its stages, mesh coordinates and replicas; a thread per stream. */
function deviceThreads(plan: Plan, meta: TraceEvent[]): DeviceThreads {
  const byKey = new Map<string, Instruction>();
  const tidOf = new Map<string, number>();
  const nextTid = new Map<number, number>();
  for (const d of plan.devices) {
    const stages =
      d.stages.length > 0 ? ` · stage${d.stages.length > 1 ? 's' : ''} ${d.stages.join(', ')}` : '';
    const idle = d.streams.length === 0 ? ' (unused)' : '';
    // A group lowered once: this device's timeline stands for its replicas too.
    const r = d.replicas ?? [];
    const shown = r.length > 4 ? `${r.slice(0, 3).join(', ')}, …, ${r[r.length - 1]}` : r.join(', ');
    const replicas = r.length > 0 ? ` (and ${r.length} replica${r.length > 1 ? 's' : ''}: ${shown})` : '';
    // Its mesh coordinates (`dp 1 · tp 3`); a group lowered once stands for all of them (`dp 0–63 · tp 0–7`).
    const mesh = d.group >= 0 ? plan.meshes?.[d.group] : undefined;
    const coords = mesh
      ? ` · ${r.length > 0 ? meshRangeLabel(mesh) : meshLabel(mesh, plan.groups[d.group]!.indexOf(d.device))}`
      : '';
    meta.push({
      name: 'process_name',
      ph: 'M',
      pid: d.device,
      tid: 0,
      args: { name: `device ${d.device}${stages}${coords}${replicas}${idle}` },
    });
    meta.push({ name: 'process_sort_index', ph: 'M', pid: d.device, tid: 0, args: { sort_index: d.device } });
    d.streams.forEach((s, i) => {
      const tid = i + 1;
      tidOf.set(`${d.device}|${s.stream}`, tid);
      meta.push({ name: 'thread_name', ph: 'M', pid: d.device, tid, args: { name: s.stream } });
      meta.push({ name: 'thread_sort_index', ph: 'M', pid: d.device, tid, args: { sort_index: tid * 10 } });
      for (const ins of s.instructions) byKey.set(`${d.device}|${ins.id}`, ins);
    });
    nextTid.set(d.device, d.streams.length + 1);
  }
  return { byKey, tidOf, nextTid };
}

/** Receive lanes per (device, stream): a new thread whenever a receive overlaps every lane's last. */
class ReceiveLanes {
  /** The end of the last slice on each lane. */
  private readonly lanes = new Map<string, { tid: number; end: number }[]>();

  constructor(
    private readonly threads: DeviceThreads,
    private readonly meta: TraceEvent[],
  ) {}

  laneOf(e: TimelineEvent, start: number, end: number): number {
    const { nextTid, tidOf } = this.threads;
    const key = `${e.device}|${e.stream}`;
    let list = this.lanes.get(key);
    if (!list) this.lanes.set(key, (list = []));
    let lane = list.find((l) => l.end <= start);
    if (!lane) {
      const tid = nextTid.get(e.device)!;
      nextTid.set(e.device, tid + 1);
      const n = list.length + 1;
      const name = n === 1 ? `${e.stream} · receives` : `${e.stream} · receives ${n}`;
      this.meta.push({ name: 'thread_name', ph: 'M', pid: e.device, tid, args: { name } });
      this.meta.push({
        name: 'thread_sort_index',
        ph: 'M',
        pid: e.device,
        tid,
        args: { sort_index: tidOf.get(key)! * 10 + n },
      });
      lane = { tid, end: end };
      list.push(lane);
    }
    lane.end = end;
    return lane.tid;
  }
}

type ProvenanceOf = (ins: Instruction | undefined) => Record<string, unknown> | undefined;

/** One provenance object per (pass, directive): large plans share a few hundred of them. */
function provenances(options: TraceOptions): ProvenanceOf {
  const made = new Map<string, Record<string, unknown>>();
  return (ins) => {
    const p = ins?.provenance;
    if (!p) return undefined;
    const k = `${p.pass}|${p.directive}`;
    let out = made.get(k);
    if (!out) {
      const entry = p.directive === null ? undefined : options.program?.[p.directive];
      out = entry ? { ...p, path: formatPath(entry.path), op: entry.directive.op } : { ...p };
      made.set(k, out);
    }
    return out;
  };
}

/** Every instruction but RECVs as a slice on its stream's thread, and a flow start at each SEND. */
function streamEvents(
  timeline: readonly TimelineEvent[],
  { byKey, tidOf }: DeviceThreads,
  provenanceOf: ProvenanceOf,
): { events: TraceEvent[]; recvs: { e: TimelineEvent; ins: Instruction }[]; flows: Map<string, number> } {
  const events: TraceEvent[] = [];
  const flows = new Map<string, number>();
  let flowIds = 0;
  const recvs: { e: TimelineEvent; ins: Instruction }[] = [];
  for (const e of timeline) {
    const ins = byKey.get(`${e.device}|${e.id}`);
    if (e.op === 'RECV' && ins?.op === 'RECV') {
      recvs.push({ e, ins });
      continue;
    }
    const tid = tidOf.get(`${e.device}|${e.stream}`) ?? 0;
    const ts = us(e.startMs);
    const x: TraceEvent = {
      name: label(e, ins),
      cat: CATEGORY[e.op] ?? 'other',
      ph: 'X',
      pid: e.device,
      tid,
      ts,
      dur: Math.max(0, Math.round((us(e.endMs) - ts) * 1e3) / 1e3),
      args: argsOf(e, ins, provenanceOf(ins)),
    };
    events.push(x);
    if (e.op === 'SEND' && ins?.op === 'SEND') {
      const id = ++flowIds;
      flows.set(`${e.device}|${ins.peer}|${ins.transfer}`, id);
      events.push({ name: 'transfer', cat: 'p2p', ph: 's', id, pid: e.device, tid, ts });
    }
  }
  return { events, recvs, flows };
}

/**
 * Each RECV while its data is on the wire, on a receive lane of its stream, with the flow from
 * its SEND ending there. Lanes are filled in order of when each transfer is on the wire, not when
 * it was posted.
 */
function receiveEvents(
  timeline: readonly TimelineEvent[],
  recvs: readonly { e: TimelineEvent; ins: Instruction }[],
  flows: ReadonlyMap<string, number>,
  { byKey }: DeviceThreads,
  lanes: ReceiveLanes,
  provenanceOf: ProvenanceOf,
  events: TraceEvent[],
): void {
  const sendStart = new Map<string, number>();
  for (const e of timeline) {
    if (e.op !== 'SEND') continue;
    const ins = byKey.get(`${e.device}|${e.id}`);
    if (ins?.op === 'SEND') sendStart.set(`${e.device}|${e.peer}|${ins.transfer}`, e.startMs);
  }
  const wired = recvs.map(({ e, ins }) => {
    const key = `${(ins as { peer: number }).peer}|${e.device}|${(ins as { transfer: string }).transfer}`;
    return { e, ins, key, start: Math.max(e.startMs, sendStart.get(key) ?? e.startMs) };
  });
  wired.sort((a, b) => a.start - b.start || a.e.endMs - b.e.endMs);
  for (const { e, ins, key, start } of wired) {
    const tid = lanes.laneOf(e, us(start), us(e.endMs));
    const ts = us(start);
    events.push({
      name: label(e, ins),
      cat: 'p2p',
      ph: 'X',
      pid: e.device,
      tid,
      ts,
      dur: Math.max(0, Math.round((us(e.endMs) - ts) * 1e3) / 1e3),
      args: { ...argsOf(e, ins, provenanceOf(ins)), postedUs: us(e.startMs) },
    });
    const id = flows.get(key);
    if (id !== undefined)
      events.push({ name: 'transfer', cat: 'p2p', ph: 'f', bp: 'e', id, pid: e.device, tid, ts });
  }
}

function tagText(tags: Record<string, number | string>): string {
  let out = '';
  for (const k in tags) {
    if (k === 'PASS') continue;
    out += out === '' ? `${k}=${tags[k]}` : ` ${k}=${tags[k]}`;
  }
  return out;
}

function label(e: TimelineEvent, ins: Instruction | undefined): string {
  if (ins?.op === 'OVERLAP') return `F&B ${ins.members.map((m) => `${m.op} ${tagText(m.tags)}`).join(' + ')}`;
  const tags = tagText(e.tags);
  const pass = e.tags.PASS;
  const what = [pass, tags].filter((x) => x !== undefined && x !== '').join(' ');
  if (e.op === 'SEND') return `SEND ${what} → d${e.peer}`;
  if (e.op === 'RECV') return `RECV ${what} ← d${e.peer}`;
  return tags ? `${e.op} ${tags}` : e.op;
}

function argsOf(
  e: TimelineEvent,
  ins: Instruction | undefined,
  provenance: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const args: Record<string, unknown> = { id: e.id, op: e.op, tags: e.tags };
  if (provenance) args.provenance = provenance;
  if (ins && 'flops' in ins && ins.flops !== undefined) args.flops = ins.flops;
  if (ins?.op === 'OVERLAP') {
    args.members = ins.members.map((m) => ({
      id: m.id,
      op: m.op,
      tags: m.tags,
      ...(m.flops !== undefined ? { flops: m.flops } : {}),
    }));
    const flops = ins.members.reduce((s, m) => s + (m.flops ?? 0), 0);
    if (flops > 0) args.flops = flops;
  }
  if (e.bytes !== undefined) args.bytes = e.bytes;
  if (e.peer !== undefined) args.peer = e.peer;
  if (ins && 'allocBytes' in ins && ins.allocBytes) args.allocBytes = ins.allocBytes;
  if (ins && 'freeBytes' in ins && ins.freeBytes) args.freeBytes = ins.freeBytes;
  if (
    ins?.op === 'ALL_REDUCE' ||
    ins?.op === 'REDUCE_SCATTER' ||
    ins?.op === 'ALL_GATHER' ||
    ins?.op === 'ALL_TO_ALL'
  )
    args.devices = ins.devices;
  return args;
}
