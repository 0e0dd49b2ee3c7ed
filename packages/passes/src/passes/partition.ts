/** Splits the global DAG into the ops each device group runs, by stream. */
import { CompileError } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';

export interface Partition {
  /** Per group, per stream name, the node indices on it (in DAG order). */
  readonly groups: readonly ReadonlyMap<string, number[]>[];
}

export const partitionPass: Pass = {
  name: 'partition',
  run(dag, ctx) {
    const groups = dag.groups.map(() => new Map<string, number[]>());
    dag.nodes.forEach((n, i) => {
      if (n.kind === 'control') return;
      const g = groups[n.group];
      if (!g)
        throw new CompileError({ path: 'directives', message: `${n.id} is not placed on any device group` });
      let list = g.get(n.stream);
      if (!list) g.set(n.stream, (list = []));
      list.push(i);
    });
    ctx.partition = { groups };
    return dag;
  },
};
