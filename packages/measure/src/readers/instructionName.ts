/**
 * Which event names in a profiler trace are plan instructions. A user's trace holds thousands of
 * framework events (`aten::mm`, `ProfilerStep#3`) beside the ranges they wrapped in
 * `record_function("<instruction id>")`; an id starts with its op, so that is what is kept.
 */
import { NODE_OPS } from '@stagecraft/ir';

// The plan's instruction ops: the DAG's (its ordering markers aside) and the overlapped unit.
const OPS = [...NODE_OPS.filter((op) => !op.startsWith('ORDER_')), 'OVERLAP'];

const ONE = `(?:${OPS.join('|')})\\.[^\\s;()]+`;
/** An id, or an overlapped unit's: its members' ids in parentheses, `(F.b2.mb5;B.b5.mb1)`. */
const ID = new RegExp(`^(?:${ONE}|\\(${ONE}(?:;${ONE})+\\))$`);

export function looksLikeInstructionId(name: string): boolean {
  return ID.test(name);
}

/**
 * The rank a per-rank trace file names: `rank3.json`, `trace_rank_3.json`, `worker-rank-12.pt.trace.json`.
 * Torch 1.13's legacy export records no rank, so users name their files by it.
 */
export function rankFromFileName(fileName: string): number | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const m = /rank[_-]?(\d+)/i.exec(base);
  return m ? Number(m[1]) : undefined;
}
