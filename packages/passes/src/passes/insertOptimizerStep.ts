/**
 * One optimizer step UPD per device group, after every backward of the parameters the group holds:
 * the end of the training step. Its cost is the sum of its blocks' UPD costs.
 */
import { computeNode, type DagNode, EDGE_DATA, type EdgeKind } from '@stagecraft/ir';
import { withNodes } from '../edgeAppend.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';

export const insertOptimizerStepPass: Pass = {
  name: 'insert-optimizer-step',
  run(dag) {
    const nodes = dag.nodes;
    const groups = dag.groups.length;
    // Backwards per group first, so the new edges (group by group, each group's in node order)
    // are written straight into columns of their final size.
    const grads = new Int32Array(groups + 1);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (n.kind === 'compute' && n.group >= 0 && (n.op === 'B' || n.op === 'BW')) grads[n.group + 1]!++;
    }
    const added: DagNode[] = [];
    const updOf = new Int32Array(groups).fill(-1);
    for (let g = 0; g < groups; g++) {
      if (grads[g + 1] === 0) continue;
      updOf[g] = nodes.length + added.length;
      added.push(
        computeNode({
          op: 'UPD',
          id: `UPD.d${dag.groups[g]![0]}`,
          block: -1,
          dims: dag.dims.map(() => -1),
          group: g,
          stream: 'compute',
          allocBytes: 0,
          freeBytes: 0,
          provenance: { pass: 'insert-optimizer-step', directive: null },
        }),
      );
    }
    if (added.length === 0) return dag;
    for (let g = 0; g < groups; g++) grads[g + 1]! += grads[g]!;
    const count = grads[groups]!;
    const from = new Array<number>(count);
    const to = new Array<number>(count);
    const at = grads.subarray(0, groups);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (n.kind === 'compute' && n.group >= 0 && (n.op === 'B' || n.op === 'BW')) {
        const w = at[n.group]!++;
        from[w] = i;
        to[w] = updOf[n.group]!;
      }
    }
    const e = dag.edges;
    const next = {
      ...dag,
      nodes: withNodes(nodes, added),
      edges: {
        from: e.from.concat(from),
        to: e.to.concat(to),
        kind: e.kind.concat(new Array<EdgeKind>(count).fill(EDGE_DATA)),
        bytes: e.bytes.concat(new Array<number>(count).fill(0)),
      },
    };
    // The UPDs come after the other nodes and belong to no block.
    NodeIndex.carry(dag, next);
    return next;
  },
};
