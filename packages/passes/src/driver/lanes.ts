/**
 * The plan's instruction lists before lowering, as passes leave them in the context: `partition`
 * groups the DAG's nodes into lanes (one per device group and stream), `stream-order` puts each
 * lane in execution order, and `lower-plan` reads both. Declared with the pass contract
 * (pass.ts), below the passes that make them, so the contract names them without importing a pass.
 */
import type { ArraySource, Dag } from '@stagecraft/ir';
import type { Predecessors } from '../dag/adjacency.ts';
import type { Units } from '../dag/topo.ts';

export interface Lane {
  readonly group: number;
  readonly stream: string;
}

export interface Partition {
  /** The DAG this partition is of. */
  readonly dag: Dag;
  /** Lane of each node (index into `lanes`); -1 for control nodes, which are not lowered. */
  readonly laneOf: Int32Array;
  /** Lanes in order of their first node in the DAG. */
  readonly lanes: readonly Lane[];
  /** Per group, its lane indices. */
  readonly groupLanes: readonly (readonly number[])[];
}

export interface StreamOrder {
  /** The DAG this order is of. */
  readonly dag: Dag;
  readonly units: Units;
  /** Units (representative node indices) of lane l in execution order: `laneUnits[laneOff[l] .. laneOff[l+1]-1]`. */
  readonly laneOff: Int32Array;
  readonly laneUnits: Int32Array;
  /**
   * A number per unit of those that grows along every edge and down every lane (its place in one
   * topological order of the DAG that runs every lane in its order).
   */
  readonly laneRank: Float64Array;
  /**
   * The DAG's predecessor lists, built for the issue keys and read again by lower-plan. Lent from
   * the compile's scratch (`lentFrom`): valid only in that compile. An incremental compile that
   * keeps this order and reruns lower-plan alone sees another scratch and builds them again.
   */
  readonly predecessors: { readonly lists: Predecessors; readonly lentFrom: ArraySource };
}
