/**
 * Setup of the simulator: the plan flattened to integer indices, so the event loop touches only
 * typed arrays. The plan is read once, into its layout (ir's planLayout.ts: units laid out stream
 * by stream, waits as unit indices, SEND↔RECV pairs, collective groups), the structure validation
 * reads too, so a plan rule is checked in one place with one message. Which reader runs is
 * decided here, visibly: a compiled plan that nobody has read or edited since validation carries
 * the layout proven on its columns (`compiledLayoutOf`); any other plan is laid out from its
 * instruction objects, which reports every reference that does not resolve (unknown ids,
 * unmatched transfers, disagreeing collectives) with a path into the plan.
 *
 * On top of the layout this adds what only a simulation needs: each unit's duration and memory
 * effects (unitTimes.ts), dependency counts, who waits for each unit, and each collective group's
 * duration. A unit's stream predecessor is the index before it when both are on the same stream.
 */
import {
  type ArraySource,
  type CollectiveInstruction,
  compiledLayoutOf,
  FRESH,
  type Instruction,
  type Issue,
  IssueList,
  layoutFromObjects,
  type Plan,
  positionOf,
  UNIT_COLLECTIVE,
  UNIT_RECV,
} from '@stagecraft/ir';
import { type CostCluster, collectiveMs } from './costModel.ts';
import { timesFromColumns, timesFromObjects } from './unitTimes.ts';

const MAX_ERRORS = 100;

export interface Flat {
  plan: Plan;
  /** Units, streams, devices (indices into plan.devices). */
  N: number;
  /** Instructions, each member of an overlapped unit counted (the plan's ops). */
  ops: number;
  S: number;
  D: number;
  /** Per unit (unit v is instruction positionOf(v) of its stream; see instAt). */
  unitDev: Int32Array;
  unitStream: Int32Array;
  kind: Uint8Array;
  /**
   * Duration in ms (0 for RECV and collectives, whose time comes from their partners), the
   * cluster's dispatch time included for the units that pay it (`dispatched`).
   */
  dur: Float64Array;
  /** Host time before each stream-occupying unit's work (the cluster's `dispatchMs`; 0: none). */
  dispatchMs: number;
  allocB: Float64Array;
  freeB: Float64Array;
  /** Per global stream: device index, index within its device, name, first unit (one extra entry: N). */
  streamDev: Int32Array;
  streamLocal: Int32Array;
  streamName: string[];
  streamStart: Int32Array;
  /** Per device index: Σ durations of its compute and OVERLAP units. */
  busy: Float64Array;
  /** Wait targets of each unit (CSR). */
  waitOff: Int32Array;
  waitTgt: Int32Array;
  /** RECV → its SEND and SEND → its RECV (−1 elsewhere). */
  partner: Int32Array;
  /** SEND/RECV: the peer device number (−1 elsewhere). */
  peer: Int32Array;
  /** SEND/RECV: the device index of the peer's plan, a replica's being its representative's (−1 elsewhere). */
  peerIndex: Int32Array;
  /** Collective → group; per group its member units (CSR), duration, op and devices. */
  collGroup: Int32Array;
  groupOff: Int32Array;
  groupUnits: Int32Array;
  groupDur: Float64Array;
  groupOp: CollectiveInstruction['op'][];
  groupDevices: (readonly number[])[];
}

export type FlattenResult = { ok: true; flat: Flat } | { ok: false; errors: Issue[] };

export function flatten(plan: Plan, cost: CostCluster, arrays: ArraySource = FRESH): FlattenResult {
  const issues = new IssueList(MAX_ERRORS);
  const layout = compiledLayoutOf(plan) ?? layoutFromObjects(plan, issues, arrays);
  if (layout === undefined) return { ok: false, errors: issues.list };
  const times =
    layout.columns !== undefined
      ? timesFromColumns(layout, layout.columns, cost, issues, arrays)
      : timesFromObjects(layout, cost, issues, arrays);
  if (issues.count > 0) return { ok: false, errors: issues.list };
  addDispatch(layout.N, layout.kind, times.dur, cost.dispatchMs);

  const { N, S, D, deviceStreams, streamStart, waitOff, waitTgt, groupOff, groupDevices, groupOp } = layout;
  const streamDev = layout.streamDev;
  const streamLocal = new Int32Array(S);
  const streamName: string[] = [];
  // The engines read each unit's device at every event: a column here, lent for the run (the
  // layout derives it from the unit's stream).
  const unitDev = arrays.int32(N);
  for (let di = 0; di < D; di++) {
    unitDev.fill(di, streamStart[deviceStreams[di]!]!, streamStart[deviceStreams[di + 1]!]!);
    const streams = plan.devices[di]!.streams;
    for (let s = deviceStreams[di]!; s < deviceStreams[di + 1]!; s++) {
      streamLocal[s] = s - deviceStreams[di]!;
      streamName.push(streams[s - deviceStreams[di]!]!.stream);
    }
  }

  // Collectives are timed once per devices array, op and size.
  const G = groupDevices.length;
  const groupDur = new Float64Array(G);
  const durOf = new Map<readonly number[], Map<string, number>>();
  for (let g = 0; g < G; g++) {
    const devices = groupDevices[g]!;
    let byOp = durOf.get(devices);
    if (!byOp) durOf.set(devices, (byOp = new Map()));
    const k = `${groupOp[g]}:${layout.groupBytes[g]}`;
    let t = byOp.get(k);
    if (t === undefined) byOp.set(k, (t = collectiveMs(cost, groupOp[g]!, devices, layout.groupBytes[g]!)));
    groupDur[g] = t;
  }

  // Field by field, not spread: the copy's hidden class must be one and the same for every plan,
  // or the engines reading it are deoptimised per run. The layout's arrays are shared, not
  // copied: the engines only read them (they count down `dep`, which is the simulation's own).
  const flat: Flat = {
    plan,
    N,
    ops: times.ops,
    S,
    D,
    unitDev,
    unitStream: layout.unitStream,
    kind: layout.kind,
    dur: times.dur,
    dispatchMs: cost.dispatchMs,
    allocB: times.allocB,
    freeB: times.freeB,
    streamDev,
    streamLocal,
    streamName,
    streamStart,
    busy: times.busy,
    waitOff,
    waitTgt,
    partner: layout.partner,
    peer: times.peer,
    peerIndex: layout.peerIndex,
    collGroup: layout.collGroup,
    groupOff,
    groupUnits: layout.groupUnits,
    groupDur,
    groupOp: layout.groupOp as CollectiveInstruction['op'][],
    groupDevices: layout.groupDevices as (readonly number[])[],
  };
  return { ok: true, flat };
}

/**
 * A runtime issues each instruction before its work starts: a unit that occupies its stream
 * (compute, OVERLAP, SEND, OFFLOAD, RELOAD) holds it `dispatchMs` longer, that time first. A RECV
 * is posted and a collective arrives as before (their time is their partners').
 */
function addDispatch(N: number, kind: Uint8Array, dur: Float64Array, dispatchMs: number): void {
  if (dispatchMs === 0) return;
  for (let v = 0; v < N; v++) if (dispatched(kind[v]!)) dur[v]! += dispatchMs;
}

/** Whether a unit of this kind pays the dispatch time (addDispatch). */
export function dispatched(k: number): boolean {
  return k !== UNIT_RECV && k !== UNIT_COLLECTIVE;
}

/** The instruction of unit v (made, for a compiled plan, when its stream is first read). */
export function instAt(f: Flat, v: number): Instruction {
  return f.plan.devices[f.unitDev[v]!]!.streams[f.streamLocal[f.unitStream[v]!]!]!.instructions[
    positionOf(f, v)
  ]!;
}

/** Path of a unit in the plan, e.g. `devices[1].streams[0].instructions[4]`. */
export function unitPath(f: Flat, v: number): string {
  return `devices[${f.unitDev[v]}].streams[${f.streamLocal[f.unitStream[v]!]}].instructions[${positionOf(f, v)}]`;
}
