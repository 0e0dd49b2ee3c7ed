/**
 * One optimizer step UPD per device group, after every backward of the parameters the group holds:
 * the end of the training step. Its cost is the sum of its blocks' UPD costs.
 */
import { EDGE_DATA, edgeColumns, grow, joinEdges, Names, OP_B, OP_BW, OP_UPD, tableOf } from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';

export const insertOptimizerStepPass: Pass = {
  name: 'insert-optimizer-step',
  reads: [],
  writes: [],
  run(dag, ctx) {
    const t = tableOf(dag);
    const groups = dag.groups.length;
    // One read of the nodes: the backwards and their groups, and how many each group has, so the
    // new edges (group by group, each group's in node order) go straight into columns of their
    // final size. (Lent arrays: they die with the pass.)
    const gradNode = ctx.scratch.int32(t.length);
    const gradGroup = ctx.scratch.int32(t.length);
    let found = 0;
    const grads = new Int32Array(groups + 1);
    for (let i = 0; i < t.length; i++) {
      const op = t.op[i]!;
      const g = t.group[i]!;
      if (g >= 0 && (op === OP_B || op === OP_BW)) {
        gradNode[found] = i;
        gradGroup[found++] = g;
        grads[g + 1]!++;
      }
    }
    let added = 0;
    for (let g = 0; g < groups; g++) if (grads[g + 1] !== 0) added++;
    if (added === 0) return dag;
    const out = grow(t, added);
    const names = new Names(t.names);
    const compute = names.index('compute');
    const pass = names.index('insert-optimizer-step');
    const updOf = new Int32Array(groups).fill(-1);
    let w = t.length;
    for (let g = 0; g < groups; g++) {
      if (grads[g + 1] === 0) continue;
      updOf[g] = w;
      out.op[w] = OP_UPD;
      out.group[w] = g;
      out.stream[w] = compute;
      out.provPass[w] = pass;
      w++;
    }
    out.names = names.names;
    for (let g = 0; g < groups; g++) grads[g + 1]! += grads[g]!;
    const count = grads[groups]!;
    const gradEdges = edgeColumns(count);
    const { from, to } = gradEdges;
    gradEdges.kind.fill(EDGE_DATA);
    const at = grads.subarray(0, groups);
    for (let k = 0; k < found; k++) {
      const g = gradGroup[k]!;
      const w = at[g]!++;
      from[w] = gradNode[k]!;
      to[w] = updOf[g]!;
    }
    const next = rewritten(dag, ctx, { edges: joinEdges(dag.edges, gradEdges) }, out);
    // The UPDs come after the other nodes and belong to no block.
    NodeIndex.carry(dag, next);
    return next;
  },
};
