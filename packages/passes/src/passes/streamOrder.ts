/**
 * A total order per lane (device group and stream): the order of a FIFO topological sort of the
 * whole DAG. Any linear extension is free of deadlock (every wait points backwards in it), the
 * order directives' temporal edges make it the schedule's order, and a channel's RECVs come out
 * in the order of its SENDs, as NCCL's point-to-point matching needs.
 */
import { CompileError, type Dag, nodeIdOf } from '@stagecraft/ir';
import { topoOrderOf, type Units } from '../dag/topo.ts';
import type { Pass } from '../driver/pass.ts';

export interface StreamOrder {
  /** The DAG this order is of. */
  readonly dag: Dag;
  readonly units: Units;
  /** Units (representative node indices) of lane l in execution order: `laneUnits[laneOff[l] .. laneOff[l+1]-1]`. */
  readonly laneOff: Int32Array;
  readonly laneUnits: Int32Array;
  /** Position of each of those units in the topological order: it grows along every edge. */
  readonly laneRank: Int32Array;
}

export const streamOrderPass: Pass = {
  name: 'stream-order',
  reads: [],
  run(dag, ctx) {
    const partition = ctx.partition;
    // The pipeline runs partition right before this pass: lanes of another DAG are a bug there.
    if (partition?.dag !== dag) throw new Error('stream-order: the partition is not of its input DAG');
    const topo = topoOrderOf(dag, ctx.scratch);
    const { units } = topo;
    if (!topo.ok) {
      throw new CompileError({
        path: 'directives',
        message: `the DAG has a cycle: ${topo.cycle.map((n) => nodeIdOf(dag, n)).join(' → ')}`,
      });
    }
    const { laneOf, lanes } = partition;
    const { rep } = units;
    const L = lanes.length;
    const laneOff = new Int32Array(L + 1);
    for (let i = 0; i < rep.length; i++) if (rep[i] === i && laneOf[i]! >= 0) laneOff[laneOf[i]! + 1]!++;
    for (let l = 0; l < L; l++) laneOff[l + 1]! += laneOff[l]!;
    const fill = laneOff.slice(0, L);
    const laneUnits = new Int32Array(laneOff[L]!);
    const laneRank = new Int32Array(laneOff[L]!);
    const { order } = topo;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const l = laneOf[i]!;
      if (rep[i] === i && l >= 0) {
        laneRank[fill[l]!] = k;
        laneUnits[fill[l]!++] = i;
      }
    }
    ctx.streamOrder = { dag, units, laneOff, laneUnits, laneRank };
    return dag;
  },
};
