import { type Cluster, CompileError, expandCluster } from '@stagecraft/ir';

/** Number of devices in a cluster (a preset expanded to its nodes × GPUs per node). */
export function deviceCount(cluster: Cluster): number {
  const r = expandCluster(cluster);
  if (!r.ok) throw new CompileError(r.errors);
  const c = r.cluster;
  return c.kind === 'ideal' ? c.devices : c.nodes * c.gpusPerNode;
}
