/**
 * Splits the global DAG into lanes, one per (device group, stream) that has ops: the instruction
 * lists of the plan. `stream-order` fills the lanes in execution order and `lower-plan` emits
 * them, so the grouping is computed here once, as one integer per node.
 */
import { CompileError, type Dag, nodeIdOf, OP_ORDER_SOURCE, tableOf } from '@stagecraft/ir';
import type { Lane, Partition } from '../driver/lanes.ts';
import type { Pass } from '../driver/pass.ts';

export const partitionPass: Pass = {
  name: 'partition',
  reads: [],
  writes: ['partition'],
  run(dag, ctx) {
    ctx.partition = partitionOf(dag);
    return dag;
  },
};

export function partitionOf(dag: Dag): Partition {
  const t = tableOf(dag);
  const laneOf = new Int32Array(t.length);
  const lanes: Lane[] = [];
  // Lanes by stream name index (the table's names), then group.
  const laneStream: number[] = [];
  const groupLanes: number[][] = dag.groups.map(() => []);
  // Streams are few, so consecutive nodes mostly hit the lane of the node before.
  let lastGroup = -2;
  let lastStream = -1;
  let lastLane = -1;
  // The columns locals: a process's first compile runs this loop interpreted for most of its
  // length (docs/performance.md, the cold run), where a property read per node counts.
  const { op, group: groupCol, stream: streamCol, length: n } = t;
  for (let i = 0; i < n; i++) {
    if (op[i]! >= OP_ORDER_SOURCE) {
      laneOf[i] = -1;
      continue;
    }
    const group = groupCol[i]!;
    const stream = streamCol[i]!;
    if (group !== lastGroup || stream !== lastStream) {
      const own = groupLanes[group];
      if (!own)
        throw new CompileError({
          path: 'directives',
          message: `${nodeIdOf(dag, i)} is not placed on any device group`,
        });
      let lane = -1;
      for (let k = 0; k < own.length; k++) if (laneStream[own[k]!] === stream) lane = own[k]!;
      if (lane < 0) {
        lane = lanes.length;
        lanes.push({ group, stream: t.names[stream]! });
        laneStream.push(stream);
        own.push(lane);
      }
      lastGroup = group;
      lastStream = stream;
      lastLane = lane;
    }
    laneOf[i] = lastLane;
  }
  return { dag, laneOf, lanes, groupLanes };
}
