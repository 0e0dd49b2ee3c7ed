/**
 * What a unit of a plan is (a unit is a top-level instruction; an OVERLAP counts once), as one
 * small integer in a typed column: lowering writes it, plan layouts carry it, validation and the
 * simulator branch on it. It is defined here only, and node op codes (nodeTable.ts) and
 * instruction ops map onto it by the two functions below, so no reader depends on two lists of
 * numbers that merely happen to agree.
 */
import {
  OP_ALL_REDUCE,
  OP_ALL_TO_ALL,
  OP_OFFLOAD,
  OP_RECV,
  OP_RELOAD,
  OP_SEND,
  OP_UPD,
} from '../nodeTable.ts';
import type { Instruction } from './plan.ts';

export const UNIT_COMPUTE = 0;
export const UNIT_OVERLAP = 1;
export const UNIT_SEND = 2;
export const UNIT_RECV = 3;
export const UNIT_COLLECTIVE = 4;
export const UNIT_MEMORY = 5;

export type UnitKind =
  | typeof UNIT_COMPUTE
  | typeof UNIT_OVERLAP
  | typeof UNIT_SEND
  | typeof UNIT_RECV
  | typeof UNIT_COLLECTIVE
  | typeof UNIT_MEMORY;

/**
 * The kind of the unit a DAG node of op `code` lowers to when it is not overlapped; −1 for the
 * control nodes, which never reach a plan. Relies on the node codes' grouping (nodeTable.ts).
 */
export function unitKindOfOp(code: number): UnitKind | -1 {
  if (code <= OP_UPD) return UNIT_COMPUTE;
  if (code === OP_SEND) return UNIT_SEND;
  if (code === OP_RECV) return UNIT_RECV;
  if (code >= OP_ALL_REDUCE && code <= OP_ALL_TO_ALL) return UNIT_COLLECTIVE;
  if (code === OP_OFFLOAD || code === OP_RELOAD) return UNIT_MEMORY;
  return -1;
}

/** The kind of the unit an instruction is. */
export function unitKindOf(ins: Instruction): UnitKind {
  switch (ins.op) {
    case 'OVERLAP':
      return UNIT_OVERLAP;
    case 'SEND':
      return UNIT_SEND;
    case 'RECV':
      return UNIT_RECV;
    case 'ALL_REDUCE':
    case 'REDUCE_SCATTER':
    case 'ALL_GATHER':
    case 'ALL_TO_ALL':
      return UNIT_COLLECTIVE;
    case 'OFFLOAD':
    case 'RELOAD':
      return UNIT_MEMORY;
    default:
      return UNIT_COMPUTE;
  }
}
