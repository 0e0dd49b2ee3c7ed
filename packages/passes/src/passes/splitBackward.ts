/**
 * Splits fused backwards B into BI (gradient of the input, on the critical path) and BW (gradient
 * of the weights, free to move): explicitly by `split_backward`, and by Piper's rule that an
 * `order` naming BI or BW of a region splits that region's backward.
 */
import {
  CompileError,
  type ComputeNode,
  type Dag,
  type DagNode,
  type Filter,
  formatPath,
  patchCompute,
} from '@stagecraft/ir';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';

export const splitBackwardPass: Pass = {
  name: 'split-backward',
  run(dag, ctx) {
    const explicit = directivesOf(ctx.program, 'split_backward');
    const orders = directivesOf(ctx.program, 'order');
    const namesHalves = orders.some(({ d }) =>
      d.filters.some((slot) => slot.some((f) => f.PASS === 'BI' || f.PASS === 'BW')),
    );
    if (explicit.length === 0 && !namesHalves) return dag;
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
      for (const slot of d.filters) {
        for (const f of slot) {
          if (f.PASS !== 'BI' && f.PASS !== 'BW') continue;
          // A malformed filter is reported by the order pass, which knows its full path.
          for (const n of tryMatch(index, { ...f, PASS: 'B' })) if (!chosen.has(n)) chosen.set(n, di);
        }
      }
    }
    if (chosen.size === 0) return dag;
    return splitNodes(dag, chosen);
  },
};

function tryMatch(index: NodeIndex, f: Filter): number[] {
  try {
    return index.match(f, []);
  } catch (e) {
    if (e instanceof CompileError) return [];
    throw e;
  }
}

function splitNodes(dag: Dag, chosen: Map<number, number>): Dag {
  const nodes: DagNode[] = dag.nodes.slice();
  const from = dag.edges.from.slice();
  const to = dag.edges.to.slice();
  const kind = dag.edges.kind.slice();
  const bytes = dag.edges.bytes.slice();
  for (const [i, directive] of chosen) {
    const b = dag.nodes[i] as ComputeNode;
    const provenance = { pass: 'split-backward', directive };
    const rest = b.id.slice(1); // ids are "<op>.<where>"
    nodes[i] = patchCompute(b, { op: 'BI', id: `BI${rest}`, freeBytes: 0, provenance });
    const w = nodes.length;
    nodes.push(patchCompute(b, { op: 'BW', id: `BW${rest}`, allocBytes: 0, provenance }));
    from.push(i);
    to.push(w);
    kind.push(0);
    bytes.push(0);
  }
  return { ...dag, nodes, edges: { from, to, kind, bytes } };
}
