/**
 * A compiled plan as integer columns, in the plan's own order of instructions (device by device as
 * `plan.devices` lists them, stream by stream, position by position): what lowering knows of each
 * unit while it builds the plan, so that nothing after it re-derives those facts from the plan's
 * objects, resolving every wait id by string comparison. passes/lower/layoutFromColumns.ts reads them into the
 * plan's layout (the one structure validation and the simulator read); the simulator also reads
 * what units cost from them.
 *
 * They travel with the compile, not with the plan: the plan carries only the layout validation
 * proved on them (compiledLayout.ts). A compiled plan is a value; code that edits one edits a
 * copy, or the plan is read from its objects from then on.
 */
import type { OpKernels } from '../design/kernels.ts';

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
   * unit's place in the DAG's issue order: its issue key · n + its topological position, exact in
   * a double): checking that it does proves the plan free of wait cycles without searching for one.
   */
  readonly rank: Float64Array;
  /** The DAG node of each unit (an OVERLAP's first member): what the unit runs. */
  readonly node: Int32Array;
  /**
   * What the units' nodes cost, so that neither validation nor the simulator reads the
   * instruction objects (which a compiled plan makes only when something reads them): the DAG's
   * own columns (dag/nodeTable.ts), read through `node`, and the model's costs per op.
   */
  readonly costs: UnitCosts;
  /** OVERLAP units by unit: their members (DAG nodes) and duration (NaN where the model gives none). */
  readonly overlaps: ReadonlyMap<number, { readonly members: readonly number[]; readonly ms: number }>;
  /** Collective units by unit: the devices of the collective (its key is the unit's node). */
  readonly devices: ReadonlyMap<number, readonly number[]>;
  /**
   * Collective units over mesh axes by unit: the index of their sub-group. The units of one node
   * in different sub-groups are different collectives, so their key is the node and the index.
   */
  readonly subgroup?: ReadonlyMap<number, number>;
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
  /** GEMM shapes and launches of compute op `code` of block b at `b * COST_STRIDE + code`, where the model gives them. */
  readonly kernels: readonly (OpKernels | undefined)[];
  /** ms of each group's UPD. */
  readonly updMs: Float64Array;
}

/** Op codes per block in UnitCosts' tables (F, B, BI, BW, RECOMPUTE, UPD). */
export const COST_STRIDE = 6;
