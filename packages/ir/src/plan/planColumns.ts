/**
 * A compiled plan as integer columns, in the plan's own order of instructions (device by device as
 * `plan.devices` lists them, stream by stream, position by position): the facts validation and
 * the simulator would otherwise re-derive from the plan's objects, resolving every wait id by
 * string comparison. Lowering fills them while it builds the plan; validation proves the plan on
 * them; the simulator reads the proven waits and SEND/RECV pairs.
 *
 * They are kept by the identity of the plan object, because the public plan stays plain objects:
 * a plan read from a file, or a copy of a compiled one, has no columns and is read from its
 * objects. A compiled plan is a value; code that edits one edits a copy (columns do not follow an
 * edit in place).
 */
import type { Plan } from './plan.ts';
import { isUnread } from './planInstructions.ts';

export interface PlanColumns {
  /** Units, global streams (every device's, in order), device plans. */
  readonly N: number;
  readonly S: number;
  readonly D: number;
  /** Device plan d holds global streams deviceStreams[d] .. deviceStreams[d+1]−1. */
  readonly deviceStreams: Int32Array;
  /** Global stream s holds units streamStart[s] .. streamStart[s+1]−1. */
  readonly streamStart: Int32Array;
  readonly unitStream: Int32Array;
  /** Kind of each unit (unitKind.ts). */
  readonly kind: Uint8Array;
  /** What each unit's `waits` (and its overlapped members' waits) name, as unit indices (CSR). */
  readonly waitOff: Int32Array;
  readonly waitTgt: Int32Array;
  /** SEND/RECV: index into plan.devices of the device its `peer` names (−1 if none); −1 elsewhere. */
  readonly peerIndex: Int32Array;
  /**
   * SEND/RECV: a number per transfer string: equal numbers are equal strings. (Equal strings may
   * still get different numbers, which only makes a proof on the columns give up.)
   */
  readonly transferKey: Int32Array;
  /**
   * A number per unit that grows along every edge of the wait graph of a compiled plan (the
   * topological rank of the unit in the DAG): checking that it does proves the plan free of wait
   * cycles without searching for one.
   */
  readonly rank: Int32Array;
  /** The DAG node of each unit (an OVERLAP's first member): what the unit runs. */
  readonly node: Int32Array;
  /**
   * What the units' nodes cost, so that neither validation nor the simulator reads the
   * instruction objects (which a compiled plan makes only when something reads them): the DAG's
   * own columns (ir/nodeTable.ts), read through `node`, and the model's costs per op.
   */
  readonly costs: UnitCosts;
  /** OVERLAP units by unit: their members (DAG nodes) and duration (NaN where the model gives none). */
  readonly overlaps: ReadonlyMap<number, { readonly members: readonly number[]; readonly ms: number }>;
  /** Collective units by unit: the devices of the collective (its key is the unit's node). */
  readonly devices: ReadonlyMap<number, readonly number[]>;
}

/**
 * Costs of the units of a compiled plan: per DAG node its op, block, group, memory effects and
 * bytes (the node table's columns) and, per op, what the model says it takes.
 */
export interface UnitCosts {
  readonly op: Uint8Array;
  readonly block: Int32Array;
  readonly group: Int32Array;
  /** SEND/RECV: the peer group. */
  readonly peer: Int32Array;
  readonly alloc: Float64Array;
  readonly free: Float64Array;
  readonly bytes: Float64Array;
  /** ms and FLOPs of compute op `code` of block b at `b * COST_STRIDE + code`; NaN where the model gives none. */
  readonly ms: Float64Array;
  readonly flops: Float64Array;
  /** ms of each group's UPD. */
  readonly updMs: Float64Array;
}

/** Op codes per block in UnitCosts' tables (F, B, BI, BW, RECOMPUTE, UPD). */
export const COST_STRIDE = 6;

/** Columns whose plan validation proved, with each RECV's SEND (−1 for other units). */
export interface ProvenColumns extends PlanColumns {
  readonly sendOf: Int32Array;
}

const proven = new WeakMap<Plan, ProvenColumns>();

/**
 * The proven columns: `c` and each RECV's SEND. Built field by field, not by a spread: copies
 * of a large literal made by spreading it got a new hidden class per compile once V8 stopped
 * caching the copy's class, and every reader of them was deoptimised again each time.
 */
export function provenColumns(c: PlanColumns, sendOf: Int32Array): ProvenColumns {
  return {
    N: c.N,
    S: c.S,
    D: c.D,
    deviceStreams: c.deviceStreams,
    streamStart: c.streamStart,
    unitStream: c.unitStream,
    kind: c.kind,
    waitOff: c.waitOff,
    waitTgt: c.waitTgt,
    peerIndex: c.peerIndex,
    transferKey: c.transferKey,
    rank: c.rank,
    node: c.node,
    costs: c.costs,
    overlaps: c.overlaps,
    devices: c.devices,
    sendOf,
  };
}

/** Records the columns of a plan that validation proved valid on them. */
export function keepProvenColumns(plan: Plan, columns: ProvenColumns): void {
  proven.set(plan, columns);
}

/**
 * The proven columns of this very plan object, if `compile` made it and nothing could have changed
 * it since; undefined for any other plan. A stream's instructions, once read (or replaced), are
 * objects the caller may edit in place (a duration, a wait), which the columns would not see: from
 * then on the plan is read from its objects, as a plan loaded from a file is. Streams whose
 * instructions were never read are exactly as lowered (planInstructions.ts).
 */
export function provenColumnsOf(plan: Plan): ProvenColumns | undefined {
  const c = proven.get(plan);
  if (c === undefined || plan.devices.length !== c.D) return undefined;
  for (let d = 0; d < c.D; d++) {
    const streams = plan.devices[d]!.streams;
    if (streams.length !== c.deviceStreams[d + 1]! - c.deviceStreams[d]!) return undefined;
    for (let k = 0; k < streams.length; k++) if (!isUnread(streams[k]!)) return undefined;
  }
  return c;
}
