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
      out = splitAlong(out, new Set(matched), d.dim_name, d.num_microbatches, index);
    }
    return out;
  },
};

function splitAlong(dag: Dag, matched: Set<number>, name: string, n: number, directive: number): Dag {
  const suffix = `.${name.toLowerCase()}`;
  const nodes: ComputeNode[] = [];
  // first[i]: index of node i's first copy; copies of a matched node are contiguous.
  const first = new Int32Array(dag.nodes.length);
  const provenance = { pass: 'split', directive };
  (dag.nodes as ComputeNode[]).forEach((node, i) => {
    first[i] = nodes.length;
    if (matched.has(i)) {
      for (let k = 0; k < n; k++) {
        nodes.push(
          patchCompute(node, { id: `${node.id}${suffix}${k}`, dims: [...node.dims, k], provenance }),
        );
      }
    } else {
      nodes.push(patchCompute(node, { dims: [...node.dims, -1] }));
    }
  });
  const from: number[] = [];
  const to: number[] = [];
  const kind: EdgeKind[] = [];
  const bytes: number[] = [];
  const e = dag.edges;
  for (let j = 0; j < e.from.length; j++) {
    const u = e.from[j]!;
    const v = e.to[j]!;
    const mu = matched.has(u);
    const mv = matched.has(v);
    const copies = mu || mv ? n : 1;
    for (let k = 0; k < copies; k++) {
      from.push(first[u]! + (mu ? k : 0));
      to.push(first[v]! + (mv ? k : 0));
      kind.push(e.kind[j]!);
      bytes.push(e.bytes[j]!);
    }
  }
  return {
    ...dag,
    nodes,
    dims: [...dag.dims, { name, size: n, directive }],
    edges: { from, to, kind, bytes },
  };
}
