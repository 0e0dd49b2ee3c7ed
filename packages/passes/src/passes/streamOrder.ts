/**
 * A total order per lane (device group and stream). Compute lanes keep the order of a FIFO
 * topological sort of the whole DAG, which the order directives' temporal edges make the
 * schedule's. Communication lanes are issued in the order of their compute anchors (issueKeys.ts),
 * as a runtime's host thread issues NCCL calls: FIFO over the whole DAG would queue a later
 * backward's all-to-all ahead of the current forward's dispatch. The issue keys sort every unit
 * into one topological order (so no lane waits on a later unit of another: no deadlock), in which
 * a channel's RECVs follow its SENDs; its numbering is the ranks plan validation checks.
 */
import { CompileError, nodeIdOf } from '@stagecraft/ir';
import { predecessors } from '../dag/adjacency.ts';
import { issueOrder } from '../dag/issueKeys.ts';
import { topoOrderOf } from '../dag/topo.ts';
import type { Pass } from '../driver/pass.ts';

export const streamOrderPass: Pass = {
  name: 'stream-order',
  reads: ['partition'],
  writes: ['streamOrder'],
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
    // Lower-plan lists each unit's waits from the same lists, which the topological sort filled
    // when it could, from this compile's scratch.
    const sorted = topo.predecessors;
    const lists =
      sorted !== undefined && sorted.lentFrom === ctx.scratch
        ? sorted
        : { lists: predecessors(n, dag.edges, ctx.scratch), lentFrom: ctx.scratch };
    const inc = lists.lists;
    // Each lane's units numbered key·n + FIFO position: sorting by that number is sorting by
    // (key, FIFO position), a topological order, and the numbers themselves are ranks plan
    // validation can check (exact in a double: key ≤ 2n + 2). Most lanes come out sorted, every
    // compute lane among them.
    const { units: laneUnits, number: laneRank } = issueOrder(
      { dag, units, order, inc, laneOf, laneOff },
      ctx.scratch,
    );
    for (let l = 0; l < L; l++) sortLane(laneRank, laneUnits, laneOff[l]!, laneOff[l + 1]!, order);
    ctx.streamOrder = {
      dag,
      units,
      laneOff,
      laneUnits,
      laneRank,
      predecessors: lists,
    };
    return dag;
  },
};

/**
 * Sorts lane [a, b) by rank, units with their ranks. A communication lane in FIFO order is a few
 * sorted runs (its SENDs, each channel's RECVs) with units displaced by a few places, so an
 * insertion sort is near linear; past a budget of moves (an unusual lane) the numbers are sorted
 * outright, and the units read back from them (rank mod n is the unit's FIFO position).
 */
function sortLane(rank: Float64Array, units: Int32Array, a: number, b: number, order: Int32Array): void {
  let moves = 0;
  const budget = 8 * (b - a);
  for (let k = a + 1; k < b; k++) {
    const x = rank[k]!;
    if (rank[k - 1]! <= x) continue;
    const u = units[k]!;
    let j = k - 1;
    while (j >= a && rank[j]! > x) {
      rank[j + 1] = rank[j]!;
      units[j + 1] = units[j]!;
      j--;
    }
    rank[j + 1] = x;
    units[j + 1] = u;
    moves += k - 1 - j;
    if (moves > budget) break;
  }
  if (moves <= budget) return;
  rank.subarray(a, b).sort();
  const n = order.length;
  for (let k = a; k < b; k++) units[k] = order[rank[k]! % n]!;
}
