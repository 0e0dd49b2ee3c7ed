/**
 * Splits fused backwards B into BI (gradient of the input, on the critical path) and BW (gradient
 * of the weights, free to move): explicitly by `split_backward`, and by Piper's rule that an
 * `order` naming BI or BW of a region splits that region's backward.
 */
import {
  CompileError,
  type Dag,
  EDGE_DATA,
  type Filter,
  formatPath,
  grow,
  Names,
  OP_BI,
  OP_BW,
  type OrderDirective,
  type OrderSlots,
  PASS_NAMES,
  slotsOf,
  tableOf,
} from '@stagecraft/ir';
import { EdgeAppend } from '../dag/edgeAppend.ts';
import { type Pass, type PassContext, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';

export const splitBackwardPass: Pass = {
  name: 'split-backward',
  // Piper's rule: an order naming BI or BW splits that backward.
  reads: ['split_backward', 'order'],
  writes: [],
  run(dag, ctx) {
    const explicit = directivesOf(ctx.program, 'split_backward');
    const orders = directivesOf(ctx.program, 'order');
    if (explicit.length === 0 && !namesHalves(orders)) return dag;
    const index = new NodeIndex(dag);
    const chosen = new Map<number, number>(); // B node → directive that splits it
    for (const { d, index: di, path } of explicit) {
      const pass = d.filter.PASS;
      if (pass !== undefined && pass !== 'B' && pass !== '*') {
        throw new CompileError({
          path: formatPath([...path, 'filter', 'PASS']),
          message: `split_backward splits the fused backward B, not ${pass}`,
        });
      }
      const found = index.match({ ...d.filter, PASS: 'B' }, [...path, 'filter']);
      if (found.length === 0 && index.match({ ...d.filter, PASS: 'BI' }, [...path, 'filter']).length === 0) {
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no backward op' });
      }
      for (const n of found) if (!chosen.has(n)) chosen.set(n, di);
    }
    for (const { d, index: di } of orders) {
      const slots = slotsOf(d);
      if (slots) {
        // A schedule's slot columns: the B of every BI or BW they name (as `tryMatch` below).
        for (let k = 0; k < slots.pass.length; k++) {
          if (slots.pass[k] !== PASS_BI && slots.pass[k] !== PASS_BW) continue;
          for (const n of trySlot(index, slots, k)) if (!chosen.has(n)) chosen.set(n, di);
        }
        continue;
      }
      for (const slot of d.filters) {
        for (const f of slot) {
          if (f.PASS !== 'BI' && f.PASS !== 'BW') continue;
          // A malformed filter is reported by the order pass, which knows its full path.
          for (const n of tryMatch(index, { ...f, PASS: 'B' })) if (!chosen.has(n)) chosen.set(n, di);
        }
      }
    }
    if (chosen.size === 0) return dag;
    return splitNodes(dag, ctx, chosen);
  },
};

const PASS_B = PASS_NAMES.indexOf('B');
const PASS_BI = PASS_NAMES.indexOf('BI');
const PASS_BW = PASS_NAMES.indexOf('BW');

/** Whether some order slot names BI or BW (a plain scan: schedules have tens of thousands of slots). */
function namesHalves(orders: readonly { d: OrderDirective }[]): boolean {
  for (let o = 0; o < orders.length; o++) {
    const slots = slotsOf(orders[o]!.d);
    if (slots) {
      for (let k = 0; k < slots.pass.length; k++)
        if (slots.pass[k] === PASS_BI || slots.pass[k] === PASS_BW) return true;
      continue;
    }
    const filters = orders[o]!.d.filters;
    for (let j = 0; j < filters.length; j++) {
      const slot = filters[j]!;
      for (let q = 0; q < slot.length; q++) {
        const pass = slot[q]!.PASS;
        if (pass === 'BI' || pass === 'BW') return true;
      }
    }
  }
  return false;
}

/** The fused B of slot filter k's op, or none when the filter does not resolve (as tryMatch). */
function trySlot(index: NodeIndex, slots: OrderSlots, k: number): number[] {
  try {
    const n = index.findSlot(slots, k, [], PASS_B);
    return Array.from(index.found().subarray(0, n));
  } catch (e) {
    if (e instanceof CompileError) return [];
    throw e;
  }
}

function tryMatch(index: NodeIndex, f: Filter): number[] {
  try {
    return index.match(f, []);
  } catch (e) {
    if (e instanceof CompileError) return [];
    throw e;
  }
}

function splitNodes(dag: Dag, ctx: PassContext, chosen: Map<number, number>): Dag {
  const t = tableOf(dag);
  // The B rows become BI rows: those columns are copies; the others gain the BW rows in place.
  const out = grow(t, chosen.size, ['op', 'free', 'provPass', 'provDirective']);
  const names = new Names(t.names);
  const pass = names.index('split-backward');
  const edges = new EdgeAppend();
  const ids = new Map(t.ids);
  let w = t.length;
  for (const [i, directive] of chosen) {
    // The BW is a copy of the B's row; the B becomes its BI.
    out.op[w] = OP_BW;
    out.block[w] = t.block[i]!;
    for (let d = 0; d < t.dims.length; d++) out.dims[d]![w] = t.dims[d]![i]!;
    out.group[w] = t.group[i]!;
    out.stream[w] = t.stream[i]!;
    out.p2pStream[w] = t.p2pStream[i]!;
    out.free[w] = t.free[i]!;
    out.op[i] = OP_BI;
    out.free[i] = 0;
    out.provPass[i] = out.provPass[w] = pass;
    out.provDirective[i] = out.provDirective[w] = directive;
    const own = t.ids.get(i);
    if (own !== undefined) {
      // Ids are "<op>.<where>": the halves keep the where.
      ids.set(i, `BI${own.slice(1)}`);
      ids.set(w, `BW${own.slice(1)}`);
    }
    edges.add(i, w, EDGE_DATA, 0);
    w++;
  }
  out.names = names.names;
  out.ids = ids;
  return rewritten(dag, ctx, { edges: edges.onto(dag.edges) }, out);
}
