/**
 * `split` (Piper's microbatching): clones the matched sub-DAG once per index of a new dimension.
 * Edges between two clones stay within each copy; an edge from an unsplit node fans out to every
 * copy and an edge into an unsplit node gathers from every copy.
 */
import {
  CompileError,
  type ComputeNode,
  type Dag,
  type EdgeKind,
  formatPath,
  patchCompute,
} from '@stagecraft/ir';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';

export const splitPass: Pass = {
  name: 'split',
  run(dag, ctx) {
    let out = dag;
    for (const { d, index, path } of directivesOf(ctx.program, 'split')) {
      if (out.dims.some((x) => x.name === d.dim_name)) {
        throw new CompileError({
          path: formatPath([...path, 'dim_name']),
          message: `the DAG is already split along ${d.dim_name}`,
        });
      }
      if (out.nodes.some((n) => n.kind !== 'compute')) {
        throw new CompileError({ path: formatPath(path), message: 'split runs before any other rewrite' });
      }
      const matched = new NodeIndex(out).match(d.filter, [...path, 'filter']);
      if (matched.length === 0)
        throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
      const size = out.nodes.length + matched.length * (d.num_microbatches - 1);
      if (size * 1.5 > ctx.options.maxOps) {
        throw new CompileError({
          path: formatPath([...path, 'num_microbatches']),
          message: `the design would have about ${Math.round(size * 1.5).toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
        });
      }
      out = splitAlong(out, matched, d.dim_name, d.num_microbatches, index);
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
): Dag {
  // Id suffixes made once per index, not once per copy.
  const suffix = Array.from({ length: n }, (_, k) => `.${name.toLowerCase()}${k}`);
  const N = dag.nodes.length;
  const matched = new Uint8Array(N);
  for (const i of matchedList) matched[i] = 1;
  const nodes = new Array<ComputeNode>(N + matchedList.length * (n - 1));
  let count = 0;
  // first[i]: index of node i's first copy; copies of a matched node are contiguous.
  const first = new Int32Array(N);
  const provenance = { pass: 'split', directive };
  const source = dag.nodes as readonly ComputeNode[];
  const dimsOf = new SharedDims(n);
  for (let i = 0; i < N; i++) {
    const node = source[i]!;
    first[i] = count;
    if (matched[i] === 1) {
      for (let k = 0; k < n; k++) {
        const dims = dimsOf.extended(node.dims, k);
        nodes[count++] = patchCompute(node, { id: node.id + suffix[k]!, dims, provenance });
      }
    } else {
      nodes[count++] = patchCompute(node, { dims: dimsOf.extended(node.dims, -1) });
    }
  }
  // Columns of exactly the final length, filled by index.
  const e = dag.edges;
  let m = 0;
  for (let j = 0; j < e.from.length; j++) m += matched[e.from[j]!] === 1 || matched[e.to[j]!] === 1 ? n : 1;
  const from = new Array<number>(m);
  const to = new Array<number>(m);
  const kind = new Array<EdgeKind>(m);
  const bytes = new Array<number>(m);
  let w = 0;
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
  return {
    ...dag,
    nodes,
    dims: [...dag.dims, { name, size: n, directive }],
    edges: { from, to, kind, bytes },
  };
}

/**
 * Split indices are read-only and most nodes share them (every op of microbatch 5 has `[5]`), so
 * each distinct list is made once: one array per index and source list, not one per node.
 */
class SharedDims {
  private readonly made = new Map<readonly number[], (readonly number[])[]>();

  constructor(private readonly size: number) {}

  /** `dims` followed by `k` (−1 for a node the split did not copy). */
  extended(dims: readonly number[], k: number): readonly number[] {
    let byIndex = this.made.get(dims);
    if (!byIndex) this.made.set(dims, (byIndex = new Array(this.size + 1)));
    return (byIndex[k + 1] ??= [...dims, k]);
  }
}
