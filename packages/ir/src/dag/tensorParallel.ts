/** How many devices split a tensor-parallel region of a DAG (its mesh axes are design/mesh.ts). */
import { subgroupSize } from '../design/mesh.ts';
import type { Dag } from './dag.ts';

/** Members that split a tensor-parallel region's blocks: its group, or a sub-group along its mesh axes. */
export function tensorParallelDegree(dag: Dag, region: { group: number; mask?: number }): number {
  const mesh = dag.meshes?.[region.group];
  if (region.mask === undefined || !mesh) return dag.groups[region.group]?.length ?? 1;
  return subgroupSize(mesh, region.mask);
}
