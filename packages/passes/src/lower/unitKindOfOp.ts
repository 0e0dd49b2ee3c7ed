/** The kind of plan unit (ir's unitKind.ts) each DAG node op lowers to. */
import {
  OP_ALL_REDUCE,
  OP_ALL_TO_ALL,
  OP_OFFLOAD,
  OP_RECV,
  OP_RELOAD,
  OP_SEND,
  OP_UPD,
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_RECV,
  UNIT_SEND,
  type UnitKind,
} from '@stagecraft/ir';

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
