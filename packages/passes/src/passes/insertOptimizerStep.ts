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
    // One read of the nodes: the backwards and their groups, and how many each group has, so the
    // new edges (group by group, each group's in node order) go straight into columns of their
    // final size.
    const gradNode = new Int32Array(nodes.length);
    const gradGroup = new Int32Array(nodes.length);
    let found = 0;
    const grads = new Int32Array(groups + 1);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!;
      if (n.kind === 'compute' && n.group >= 0 && (n.op === 'B' || n.op === 'BW')) {
        gradNode[found] = i;
        gradGroup[found++] = n.group;
        grads[n.group + 1]!++;
      }
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
    for (let k = 0; k < found; k++) {
      const g = gradGroup[k]!;
      const w = at[g]!++;
      from[w] = gradNode[k]!;
      to[w] = updOf[g]!;
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
