/**
 * A total order per device group and stream: the order of a FIFO topological sort of the whole
 * DAG. Any linear extension is free of deadlock (every wait points backwards in it), the order
 * directives' temporal edges make it the schedule's order, and a channel's RECVs come out in the
 * order of its SENDs, as NCCL's point-to-point matching needs.
 */
import { CompileError } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';
import { topoOrder, type Units, unitsOf } from '../topo.ts';

export interface StreamOrder {
  readonly units: Units;
  /** Per group: stream name → units (representative node indices) in execution order. */
  readonly groups: readonly ReadonlyMap<string, number[]>[];
}

export const streamOrderPass: Pass = {
  name: 'stream-order',
  run(dag, ctx) {
    const units = unitsOf(dag);
    const topo = topoOrder(dag, units);
    if (!topo.ok) {
      throw new CompileError({
        path: 'directives',
        message: `the DAG has a cycle: ${topo.cycle.map((n) => dag.nodes[n]!.id).join(' → ')}`,
      });
    }
    const groups = dag.groups.map(() => new Map<string, number[]>());
    const { order } = topo;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      if (units.rep[i] !== i) continue;
      const n = dag.nodes[i]!;
      if (n.kind === 'control') continue;
      const g = groups[n.group]!;
      let list = g.get(n.stream);
      if (!list) g.set(n.stream, (list = []));
      list.push(i);
    }
    ctx.streamOrder = { units, groups };
    return dag;
  },
};
