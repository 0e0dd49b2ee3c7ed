/**
 * Splits the global DAG into lanes, one per (device group, stream) that has ops: the instruction
 * lists of the plan. `stream-order` fills the lanes in execution order and `lower-plan` emits
 * them, so the grouping is computed here once, as one integer per node.
 */
import { CompileError, type Dag } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';

export interface Lane {
  readonly group: number;
  readonly stream: string;
}

export interface Partition {
  /** Lane of each node (index into `lanes`); -1 for control nodes, which are not lowered. */
  readonly laneOf: Int32Array;
  /** Lanes in order of their first node in the DAG. */
  readonly lanes: readonly Lane[];
  /** Per group, its lane indices. */
  readonly groupLanes: readonly (readonly number[])[];
}

export const partitionPass: Pass = {
  name: 'partition',
  run(dag, ctx) {
    ctx.partition = partitionOf(dag);
    return dag;
  },
};

export function partitionOf(dag: Dag): Partition {
  const nodes = dag.nodes;
  const laneOf = new Int32Array(nodes.length);
  const lanes: Lane[] = [];
  const groupLanes: number[][] = dag.groups.map(() => []);
  // Streams are few, so consecutive nodes mostly hit the lane of the node before.
  let lastGroup = -2;
  let lastStream = '';
  let lastLane = -1;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (n.kind === 'control') {
      laneOf[i] = -1;
      continue;
    }
    if (n.group !== lastGroup || n.stream !== lastStream) {
      const own = groupLanes[n.group];
      if (!own)
        throw new CompileError({ path: 'directives', message: `${n.id} is not placed on any device group` });
      let lane = -1;
      for (const l of own) if (lanes[l]!.stream === n.stream) lane = l;
      if (lane < 0) {
        lane = lanes.length;
        lanes.push({ group: n.group, stream: n.stream });
        own.push(lane);
      }
      lastGroup = n.group;
      lastStream = n.stream;
      lastLane = lane;
    }
    laneOf[i] = lastLane;
  }
  return { laneOf, lanes, groupLanes };
}
