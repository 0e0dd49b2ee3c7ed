/** How many devices split a tensor-parallel region of a DAG (its mesh axes are design/mesh.ts). */
import { subgroupSize } from '../design/mesh.ts';
import type { Dag } from './dag.ts';

/** Members that split a tensor-parallel region's blocks: its group, or a sub-group along its mesh axes. */
export function tensorParallelDegree(dag: Dag, region: { group: number; mask?: number }): number {
  const mesh = dag.meshes?.[region.group];
  if (region.mask === undefined || !mesh) return dag.groups[region.group]?.length ?? 1;
  return subgroupSize(mesh, region.mask);
}

/*
 * Chunk counts of `shard_tensor`'s `comm_overlap` (passes/tensorParallelOverlap.ts), from Transformer
 * Engine's example of this overlap (NVIDIA/TransformerEngine
 * examples/pytorch/comm_gemm_overlap/ln_mlp_with_overlap.py): the all-gather by ring exchange in 8
 * splits at TP8, one per member, the reduce-scatter in 4 splits.
 */

/** Chunks a reduce-scatter is pipelined in (TE's example: `num_splits: 4`). */
export const REDUCE_SCATTER_CHUNKS = 4;

/** Chunks an all-gather is pipelined in over n members: a ring exchange moves one member's shard per step. */
export function allGatherChunks(n: number): number {
  return n;
}
