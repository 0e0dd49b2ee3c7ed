/**
 * A plan read once, as the integer structure every reader of a plan needs: its units (a unit is a
 * top-level instruction; an OVERLAP counts once) laid out device by device as `plan.devices`
 * lists them, stream by stream, position by position; their waits as unit indices; each SEND's
 * RECV; and the collective groups. Validation (validatePlan.ts), its diagnosis (planIssues.ts)
 * and the simulator's setup all read this, and do not know how it was built:
 *
 * - passes/lower/layoutFromColumns.ts builds it from the columns lowering wrote (a compiled plan: no instruction
 *   object is made);
 * - layoutFromObjects.ts builds it from instruction objects (a plan loaded from a file or edited),
 *   resolving every id and reporting what does not resolve.
 *
 * The rules both share (transferPairs.ts, collectiveGroups.ts) are written once, with one text
 * per problem. Cost is not part of a layout: a unit's peer is a device, whatever links reach it,
 * so a step whose transfers cross several link classes needs nothing here. A collective group is
 * a list of units (CSR) with its own devices, so groups resolved per replica of a
 * multi-dimensional mesh (one unit of a group lowered once standing for a collective per replica
 * rank) would be more groups, numbered consecutively from the unit's `collGroup`, not another shape.
 */
import type { CollectiveGroups } from './collectiveGroups.ts';
import type { CollectiveInstruction, Instruction, Plan } from './plan.ts';
import type { PlanColumns } from './planColumns.ts';
import type { TransferPairs } from './transferPairs.ts';

/**
 * Where each unit is in the plan: what messages need to name it and readers need to find it. Its
 * units, streams, devices and kinds are laid out as lowering writes them (planColumns.ts).
 */
export interface UnitPlacement
  extends Pick<PlanColumns, 'N' | 'S' | 'D' | 'deviceStreams' | 'streamStart' | 'unitStream' | 'kind'> {
  readonly plan: Plan;
  /**
   * Index into plan.devices of each global stream's device. A unit's device is its stream's
   * (deviceIndexOf) and its position on it derived (positionOf): per-unit columns of either would
   * cost every compile memory that only messages and the simulator's setup read.
   */
  readonly streamDev: Int32Array;
  /** The unit's instruction objects, when the layout was built from them; undefined from columns. */
  readonly instructions: readonly Instruction[] | undefined;
}

export interface PlanLayout extends UnitPlacement {
  /**
   * What each unit waits for, as unit indices (CSR): its `waits` and its overlapped members'
   * (a member's wait for a sibling dropped: they run as one unit).
   */
  readonly waitOff: Int32Array;
  readonly waitTgt: Int32Array;
  /**
   * SEND/RECV: the index into plan.devices of the plan of its peer; −1 elsewhere. (The device
   * number it names, which may be a replica of that plan, only the simulator's costs read.)
   */
  readonly peerIndex: Int32Array;
  /**
   * RECV → its SEND and SEND → its RECV (−1 elsewhere, or where none matched): one array, as a
   * unit is one or the other.
   */
  readonly partner: Int32Array;
  /**
   * RECVs paired with a SEND that is not the same-numbered SEND of their channel (sending device,
   * receiving device): they run, but NCCL needs the order, so validation refuses them.
   */
  readonly recvsOutOfOrder: readonly number[];
  /** Each collective unit's group (−1 elsewhere); per group its units in order (CSR), devices, op and bytes. */
  readonly collGroup: Int32Array;
  readonly groupOff: Int32Array;
  readonly groupUnits: Int32Array;
  readonly groupDevices: readonly (readonly number[])[];
  readonly groupOp: readonly CollectiveInstruction['op'][];
  readonly groupBytes: Float64Array;
  /**
   * A number per unit that grows along every edge of the wait graph, when lowering knew one (the
   * unit's topological rank in the DAG): checking it proves the plan free of cycles without a
   * search. Undefined for a layout built from objects.
   */
  readonly rank: Float64Array | undefined;
  /** The columns the layout was built from, which also say what each unit costs; undefined from objects. */
  readonly columns: PlanColumns | undefined;
}

/** The index into plan.devices of unit v's device. */
export function deviceIndexOf(u: Pick<UnitPlacement, 'streamDev' | 'unitStream'>, v: number): number {
  return u.streamDev[u.unitStream[v]!]!;
}

/** The position of unit v on its stream. */
export function positionOf(u: Pick<UnitPlacement, 'streamStart' | 'unitStream'>, v: number): number {
  return v - u.streamStart[u.unitStream[v]!]!;
}

/** The instruction of unit v (made, for a compiled plan, when its stream is first read). */
export function instructionOf(u: UnitPlacement, v: number): Instruction {
  const x = u.instructions?.[v];
  if (x !== undefined) return x;
  const d = deviceIndexOf(u, v);
  return u.plan.devices[d]!.streams[u.unitStream[v]! - u.deviceStreams[d]!]!.instructions[positionOf(u, v)]!;
}

/** Path of unit v (and of a field of it) in the plan, e.g. `devices[1].streams[0].instructions[4].waits[0]`. */
export function unitPath(u: UnitPlacement, v: number, field?: string): string {
  const d = deviceIndexOf(u, v);
  const p = `devices[${d}].streams[${u.unitStream[v]! - u.deviceStreams[d]!}].instructions[${positionOf(u, v)}]`;
  return field === undefined ? p : `${p}.${field}`;
}

/** The name of unit v's stream. */
export function streamNameOf(u: UnitPlacement, v: number): string {
  const d = deviceIndexOf(u, v);
  return u.plan.devices[d]!.streams[u.unitStream[v]! - u.deviceStreams[d]!]!.stream;
}

/** The device number of unit v. */
export function deviceOf(u: UnitPlacement, v: number): number {
  return u.plan.devices[deviceIndexOf(u, v)]!.device;
}

/** A layout's resolved waits and peers, as its builder made them. */
export interface UnitReferences {
  readonly waitOff: Int32Array;
  readonly waitTgt: Int32Array;
  readonly peerIndex: Int32Array;
}

/**
 * The layout of these parts, built field by field, not by spreads: every layout, from columns or
 * objects, then has one hidden class, and the readers of both stay monomorphic.
 */
export function assembleLayout(
  u: UnitPlacement,
  refs: UnitReferences,
  pairs: TransferPairs,
  groups: CollectiveGroups,
  rank: Float64Array | undefined,
  columns: PlanColumns | undefined,
): PlanLayout {
  return {
    plan: u.plan,
    N: u.N,
    S: u.S,
    D: u.D,
    deviceStreams: u.deviceStreams,
    streamStart: u.streamStart,
    unitStream: u.unitStream,
    streamDev: u.streamDev,
    kind: u.kind,
    instructions: u.instructions,
    waitOff: refs.waitOff,
    waitTgt: refs.waitTgt,
    peerIndex: refs.peerIndex,
    partner: pairs.partner,
    recvsOutOfOrder: pairs.recvsOutOfOrder,
    collGroup: groups.collGroup,
    groupOff: groups.groupOff,
    groupUnits: groups.groupUnits,
    groupDevices: groups.groupDevices,
    groupOp: groups.groupOp,
    groupBytes: groups.groupBytes,
    rank,
    columns,
  };
}
