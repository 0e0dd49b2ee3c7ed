/**
 * One optimizer step UPD per device group, after every backward of the parameters the group holds:
 * the end of the training step. Its cost is the sum of its blocks' UPD costs.
 */
import { computeNode, type DagNode, EDGE_DATA } from '@stagecraft/ir';
import { EdgeAppend, withNodes } from '../edgeAppend.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';

export const insertOptimizerStepPass: Pass = {
  name: 'insert-optimizer-step',
  run(dag) {
    const grads: number[][] = dag.groups.map(() => []);
    dag.nodes.forEach((n, i) => {
      if (n.kind !== 'compute' || n.group < 0) return;
      if (n.op === 'B' || n.op === 'BW') grads[n.group]!.push(i);
    });
    const added: DagNode[] = [];
    const edges = new EdgeAppend();
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
      const u = dag.nodes.length + added.length;
      added.push(upd);
      for (const b of grads[g]!) edges.add(b, u, EDGE_DATA, 0);
    });
    if (added.length === 0) return dag;
    const next = { ...dag, nodes: withNodes(dag.nodes, added), edges: edges.onto(dag.edges) };
    // The UPDs come after the other nodes and belong to no block.
    NodeIndex.carry(dag, next);
    return next;
  },
};
