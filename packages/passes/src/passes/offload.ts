/**
 * `offload`: the matched forwards' stashed activations move to host memory after F (OFFLOAD,
 * which releases them on the device when it ends) and come back before the backward (RELOAD,
 * which allocates them again when it starts), both on `stream` (default "offload"), so the
 * copies overlap compute. RELOAD is issued one op ahead: when the backward before this one on the
 * group (the producer of its gradient) could start, or when this backward's own inputs are ready
 * if its gradient comes from another group.
 */
import { EDGE_DATA, OP_B, OP_BI, OP_F, OP_OFFLOAD, OP_RELOAD, OP_UPD } from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { stashedForwards } from '../program/stashedForwards.ts';
import { DagRewrite } from './dagRewrite.ts';

export const DEFAULT_OFFLOAD_STREAM = 'offload';

export const offloadPass: Pass = {
  name: 'offload',
  reads: ['offload'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'offload', 'offload');
    if (rewrite === undefined) return dag;
    const { t, rows, edges, out, inc, directives: list } = rewrite;
    const e = dag.edges;
    for (const { f, d, provenance } of stashedForwards(
      dag,
      list,
      'offload',
      'offload moves the stash of forwards',
    )) {
      const stream = d.stream ?? DEFAULT_OFFLOAD_STREAM;
      const stashed = t.alloc[f]!;
      if (stashed === 0) continue;
      // Stash consumer: the op of the same block and microbatch that RECOMPUTE or B/BI is.
      let stash = -1;
      for (let k = out.offset[f]!; k < out.offset[f + 1]!; k++) {
        const j = out.edge[k]!;
        const x = e.to[j]!;
        if (e.kind[j] === EDGE_DATA && t.op[x]! <= OP_UPD && t.op[x] !== OP_F && t.block[x] === t.block[f]) {
          stash = j;
          break;
        }
      }
      if (stash < 0) continue;
      const b = e.to[stash]!;
      // Named after the forward: OFFLOAD.b3.mb5 (the rule), or after an id of its own.
      const own = t.ids.get(f);
      const row = (op: number, name: string) =>
        rows.add({
          op,
          like: f,
          group: t.group[f]!,
          stream,
          directive: provenance.directive ?? -1,
          bytes: stashed,
          ...(own !== undefined ? { id: `${name}${own.slice(1)}` } : {}),
        });
      const o = row(OP_OFFLOAD, 'OFFLOAD');
      const r = row(OP_RELOAD, 'RELOAD');
      edges.push(f, o, stashed);
      edges.push(o, r, stashed);
      edges.push(r, b, stashed);
      // Prefetch one op ahead: when the backward's gradient comes from the backward before it on
      // this group, reload when that one could start; else when this one's inputs are ready.
      const inputs = (x: number) => {
        const out: number[] = [];
        for (let k = inc.offset[x]!; k < inc.offset[x + 1]!; k++) {
          const j = inc.edge[k]!;
          const u = e.from[j]!;
          if (e.kind[j] !== EDGE_DATA || t.op[u] === OP_F) continue;
          out.push(u);
        }
        return out;
      };
      const mine = inputs(b);
      const chain = mine.find((u) => t.group[u] === t.group[f] && (t.op[u] === OP_B || t.op[u] === OP_BI));
      for (const u of chain !== undefined ? inputs(chain) : mine) edges.push(u, r);
    }
    return rewritten(dag, ctx, { edges: edges.list() }, rows.table());
  },
};
