/**
 * Timeline events as the worker posts them: numbers in typed arrays (moved, not copied), names
 * (streams, ops, tag keys and text values) once in a table. A structured clone makes every event's
 * strings anew, about seven objects an event, and the page's garbage collector then copies
 * DeepSeek-V3's half million of them (65–130 ms in the task that draws the timeline). Unpacked, an
 * event is its object, its tags and its id, the names shared.
 */
import type { TimelineEvent } from '@stagecraft/sim';

export interface PostedEvents {
  count: number;
  ids: string[];
  device: Int32Array;
  startMs: Float64Array;
  endMs: Float64Array;
  /** Indices into `names`. */
  stream: Int32Array;
  op: Int32Array;
  /** The event's tag keys: an index into `shapes`, each a list of indices into `names`. */
  shape: Int32Array;
  shapes: number[][];
  /** The events' tag values in shape order, one after another; a text value as its index into `names`. */
  tagValues: Float64Array;
  /** 1 where tagValues holds a text value. */
  tagText: Uint8Array;
  /** -1 for none. */
  peer: Int32Array;
  /** NaN for none. */
  bytes: Float64Array;
  /** Event index → member ids, for overlapped units. */
  members: Record<number, string[]>;
  names: string[];
}

/** `events` for postMessage, with the buffers to transfer. */
export function packEvents(events: readonly TimelineEvent[]): {
  posted: PostedEvents;
  transfer: ArrayBuffer[];
} {
  const n = events.length;
  const nameIndex = new Map<string, number>();
  const names: string[] = [];
  const name = (s: string) => {
    let k = nameIndex.get(s);
    if (k === undefined) {
      k = names.push(s) - 1;
      nameIndex.set(s, k);
    }
    return k;
  };
  const shapeIndex = new Map<string, number>();
  const shapes: number[][] = [];
  const device = new Int32Array(n);
  const startMs = new Float64Array(n);
  const endMs = new Float64Array(n);
  const stream = new Int32Array(n);
  const op = new Int32Array(n);
  const shape = new Int32Array(n);
  const peer = new Int32Array(n);
  const bytes = new Float64Array(n);
  const values: number[] = [];
  const isText: number[] = [];
  const ids: string[] = new Array(n);
  const members: Record<number, string[]> = {};
  for (let i = 0; i < n; i++) {
    const ev = events[i]!;
    ids[i] = ev.id;
    device[i] = ev.device;
    startMs[i] = ev.startMs;
    endMs[i] = ev.endMs;
    stream[i] = name(ev.stream);
    op[i] = name(ev.op);
    const keys = Object.keys(ev.tags);
    const shapeKey = keys.join('\u0000');
    let s = shapeIndex.get(shapeKey);
    if (s === undefined) {
      s = shapes.push(keys.map(name)) - 1;
      shapeIndex.set(shapeKey, s);
    }
    shape[i] = s;
    for (const key of keys) {
      const v = ev.tags[key]!;
      values.push(typeof v === 'number' ? v : name(v));
      isText.push(typeof v === 'number' ? 0 : 1);
    }
    peer[i] = ev.peer ?? -1;
    bytes[i] = ev.bytes ?? Number.NaN;
    if (ev.members) members[i] = ev.members;
  }
  const tagValues = Float64Array.from(values);
  const tagText = Uint8Array.from(isText);
  const posted: PostedEvents = {
    count: n,
    ids,
    device,
    startMs,
    endMs,
    stream,
    op,
    shape,
    shapes,
    tagValues,
    tagText,
    peer,
    bytes,
    members,
    names,
  };
  const transfer = [device, startMs, endMs, stream, op, shape, tagValues, tagText, peer, bytes].map(
    (a) => a.buffer as ArrayBuffer,
  );
  return { posted, transfer };
}

/** The events again, as the simulator made them. */
export function unpackEvents(p: PostedEvents): TimelineEvent[] {
  const out: TimelineEvent[] = new Array(p.count);
  let at = 0;
  for (let i = 0; i < p.count; i++) {
    const keys = p.shapes[p.shape[i]!]!;
    const tags: Record<string, number | string> = {};
    for (const k of keys) {
      const v = p.tagValues[at]!;
      tags[p.names[k]!] = p.tagText[at] === 1 ? p.names[v]! : v;
      at++;
    }
    const ev: TimelineEvent = {
      device: p.device[i]!,
      stream: p.names[p.stream[i]!]!,
      id: p.ids[i]!,
      op: p.names[p.op[i]!]!,
      startMs: p.startMs[i]!,
      endMs: p.endMs[i]!,
      tags,
    };
    const members = p.members[i];
    if (members) ev.members = members;
    if (p.peer[i]! >= 0) ev.peer = p.peer[i]!;
    if (!Number.isNaN(p.bytes[i]!)) ev.bytes = p.bytes[i]!;
    out[i] = ev;
  }
  return out;
}
