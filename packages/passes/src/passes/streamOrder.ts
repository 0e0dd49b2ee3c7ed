/**
 * A total order per lane (device group and stream). Compute lanes keep the order of a FIFO
 * topological sort of the whole DAG, which the order directives' temporal edges make the
 * schedule's. Communication lanes are issued in the order of their compute anchors (issueKeys.ts),
 * as a runtime's host thread issues NCCL calls: FIFO over the whole DAG would queue a later
 * backward's all-to-all ahead of the current forward's dispatch. The issue keys sort every unit
 * into one topological order (so no lane waits on a later unit of another: no deadlock), in which
 * a channel's RECVs follow its SENDs; its positions are the ranks plan validation checks.
 */
import { CompileError, type Dag, nodeIdOf } from '@stagecraft/ir';
import { issueKeys } from '../dag/issueKeys.ts';
import { topoOrderOf, type Units } from '../dag/topo.ts';
import type { Pass } from '../driver/pass.ts';

export interface StreamOrder {
  /** The DAG this order is of. */
  readonly dag: Dag;
  readonly units: Units;
  /** Units (representative node indices) of lane l in execution order: `laneUnits[laneOff[l] .. laneOff[l+1]-1]`. */
  readonly laneOff: Int32Array;
  readonly laneUnits: Int32Array;
  /** Position of each of those units in one topological order of the DAG that runs every lane in its order. */
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
    const { order } = topo;
    const n = order.length;
    const rankOf = ctx.scratch.int32(n);
    for (let k = 0; k < n; k++) rankOf[order[k]!] = k;
    const key = issueKeys(dag, units, order, rankOf, laneOf, L, ctx.scratch);
    // Every lane unit by (key, FIFO rank): a topological order, whose positions are the ranks.
    // The doubled keys lie in 0 … 2n: a counting sort, filled in rank order so each key keeps
    // it, is linear (a comparator sort took most of the pass).
    const slots = 2 * n + 1;
    const start = ctx.scratch.int32(slots + 1);
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      if (rep[i] === i && laneOf[i]! >= 0) start[key[i]! + 1]!++;
    }
    for (let s = 0; s < slots; s++) start[s + 1]! += start[s]!;
    const all = ctx.scratch.int32(start[slots]!);
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      if (rep[i] === i && laneOf[i]! >= 0) all[start[key[i]!]!++] = i;
    }
    const laneUnits = new Int32Array(all.length);
    const laneRank = new Int32Array(all.length);
    const fill = laneOff.slice(0, L);
    for (let k = 0; k < all.length; k++) {
      const u = all[k]!;
      const l = laneOf[u]!;
      laneRank[fill[l]!] = k;
      laneUnits[fill[l]!++] = u;
    }
    ctx.streamOrder = { dag, units, laneOff, laneUnits, laneRank };
    return dag;
  },
};
