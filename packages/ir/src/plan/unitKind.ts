/**
 * What a unit of a plan is (a unit is a top-level instruction; an OVERLAP counts once), as one
 * small integer in a typed column: lowering writes it, plan layouts carry it, validation and the
 * simulator branch on it. It is defined here only, and instruction ops map onto it by `unitKindOf`
 * below and node op codes by lowering's `unitKindOfOp` (passes/lower/unitKindOfOp.ts), so no
 * reader depends on two lists of numbers that merely happen to agree.
 */
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
