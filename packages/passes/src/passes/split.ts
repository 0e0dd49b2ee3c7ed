/**
 * `split` (Piper's microbatching): clones the matched sub-DAG once per index of a new dimension.
 * Edges between two clones stay within each copy; an edge from an unsplit node fans out to every
 * copy and an edge into an unsplit node gathers from every copy.
 */
import {
  CompileError,
  type Dag,
  dagOf,
  EDGE_DATA,
  edgeColumns,
  formatPath,
  Names,
  newTable,
  OP_UPD,
  partsOf,
  tableOf,
} from '@stagecraft/ir';
import type { Pass } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';
import { directivesOf } from '../program/program.ts';

export const splitPass: Pass = {
  name: 'split',
  // The places too, but only to size the table's room for transfers: a place edit leaves the
  // result as it was, so it need not rerun this pass.
  reads: ['split'],
  writes: [],
  run(dag, ctx) {
    let out = dag;
    // Data crosses device groups only when places put blocks on more than one.
    const placedOn = new Set(
      directivesOf(ctx.program, 'place').map(({ d }) => JSON.stringify(d.devices ?? d.mesh)),
    );
    const transfers = placedOn.size > 1;
    for (const { d, index, path } of directivesOf(ctx.program, 'split')) {
      if (out.dims.some((x) => x.name === d.dim_name)) {
        throw new CompileError({
          path: formatPath([...path, 'dim_name']),
          message: `the DAG is already split along ${d.dim_name}`,
        });
      }
      if (tableOf(out).op.some((op) => op > OP_UPD)) {
        throw new CompileError({ path: formatPath(path), message: 'split runs before any other rewrite' });
      }
      const matched = new NodeIndex(out).match(d.filter, [...path, 'filter']);
      if (matched.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
      const size = tableOf(out).length + matched.length * (d.num_microbatches - 1);
      if (size * 1.5 > ctx.options.maxOps) {
        throw new CompileError({
          path: formatPath([...path, 'num_microbatches']),
          message: `the design would have about ${Math.round(size * 1.5).toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
        });
      }
      out = splitAlong(out, matched, d.dim_name, d.num_microbatches, index, transfers);
    }
    return out;
  },
};

function splitAlong(
  dag: Dag,
  matchedList: readonly number[],
  name: string,
  n: number,
  directive: number,
  transfers: boolean,
): Dag {
  const t = tableOf(dag);
  const N = t.length;
  const matched = new Uint8Array(N);
  for (const i of matchedList) matched[i] = 1;
  const names = new Names(t.names);
  const pass = names.index('split');
  const D = t.dims.length;
  // Edges after the split, and how many of them join two blocks: with `transfers` (blocks placed
  // on several groups) each of those may become a SEND/RECV pair, so the table keeps room for two
  // rows per such edge and insert-send-recv appends them in place instead of copying every column.
  const e = dag.edges;
  let m = 0;
  let crossing = 0;
  for (let j = 0; j < e.from.length; j++) {
    const u = e.from[j]!;
    const v = e.to[j]!;
    const copies = matched[u] === 1 || matched[v] === 1 ? n : 1;
    m += copies;
    if (e.kind[j] === EDGE_DATA && t.block[u] !== t.block[v]) crossing += copies;
  }
  const out = newTable(
    N + matchedList.length * (n - 1),
    D + 1,
    names.names,
    (transfers ? 2 * crossing : 0) + 1024,
  );
  const dim = out.dims[D]!;
  // first[i]: index of node i's first copy; copies of a matched node are contiguous.
  const first = new Int32Array(N);
  const ids = new Map<number, string>();
  let w = 0;
  for (let i = 0; i < N; i++) {
    first[i] = w;
    const split = matched[i] === 1;
    const copies = split ? n : 1;
    const own = t.ids.get(i);
    for (let k = 0; k < copies; k++, w++) {
      out.op[w] = t.op[i]!;
      out.block[w] = t.block[i]!;
      for (let d = 0; d < D; d++) out.dims[d]![w] = t.dims[d]![i]!;
      out.group[w] = t.group[i]!;
      out.stream[w] = t.stream[i]!;
      out.p2pStream[w] = t.p2pStream[i]!;
      out.alloc[w] = t.alloc[i]!;
      out.free[w] = t.free[i]!;
      if (split) {
        dim[w] = k;
        out.provPass[w] = pass;
        out.provDirective[w] = directive;
      } else {
        out.provPass[w] = t.provPass[i]!;
        out.provDirective[w] = t.provDirective[i]!;
      }
      // An id the naming rule does not give (a DAG read from objects) takes the copy's suffix too.
      if (own !== undefined) ids.set(w, split ? `${own}.${name.toLowerCase()}${k}` : own);
    }
  }
  out.ids = ids;
  // Columns of exactly the final length, filled by index.
  const edges = edgeColumns(m);
  const { from, to, kind, bytes } = edges;
  w = 0;
  for (let j = 0; j < e.from.length; j++) {
    const u = e.from[j]!;
    const v = e.to[j]!;
    const mu = matched[u] === 1;
    const mv = matched[v] === 1;
    const copies = mu || mv ? n : 1;
    for (let k = 0; k < copies; k++, w++) {
      from[w] = first[u]! + (mu ? k : 0);
      to[w] = first[v]! + (mv ? k : 0);
      kind[w] = e.kind[j]!;
      bytes[w] = e.bytes[j]!;
    }
  }
  // Rows move, so no node object is shared with the input.
  return dagOf(
    {
      ...partsOf(dag),
      dims: [...dag.dims, { name, size: n, directive }],
      edges,
    },
    out,
  );
}
