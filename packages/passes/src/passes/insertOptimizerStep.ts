/**
 * One optimizer step UPD per device group, after every backward of the parameters the group holds:
 * the end of the training step. Its cost is the sum of its blocks' UPD costs.
 */
import { computeNode, type DagNode, EDGE_DATA, type EdgeKind } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';

export const insertOptimizerStepPass: Pass = {
  name: 'insert-optimizer-step',
  run(dag) {
    const grads: number[][] = dag.groups.map(() => []);
    dag.nodes.forEach((n, i) => {
      if (n.kind !== 'compute' || n.group < 0) return;
      if (n.op === 'B' || n.op === 'BW') grads[n.group]!.push(i);
    });
    const nodes: DagNode[] = dag.nodes.slice();
    const from = dag.edges.from.slice();
    const to = dag.edges.to.slice();
    const kind: EdgeKind[] = dag.edges.kind.slice();
    const bytes = dag.edges.bytes.slice();
    dag.groups.forEach((devices, g) => {
      if (grads[g]!.length === 0) return;
      const upd = computeNode({
        op: 'UPD',
        id: `UPD.d${devices[0]}`,
        block: -1,
        dims: dag.dims.map(() => -1),
        group: g,
        stream: 'compute',
        allocBytes: 0,
        freeBytes: 0,
        provenance: { pass: 'insert-optimizer-step', directive: null },
      });
      const u = nodes.length;
      nodes.push(upd);
      for (const b of grads[g]!) {
        from.push(b);
        to.push(u);
        kind.push(EDGE_DATA);
        bytes.push(0);
      }
    });
    return { ...dag, nodes, edges: { from, to, kind, bytes } };
  },
};
