import { type Cluster, CompileError } from '@stagecraft/ir';

/** Number of devices in a cluster. */
export function deviceCount(cluster: Cluster): number {
  if ('kind' in cluster && cluster.kind === 'ideal') return cluster.devices;
  if ('kind' in cluster && cluster.kind === 'custom') return cluster.nodes * cluster.gpusPerNode;
  throw new CompileError({
    path: 'cluster.preset',
    message: `unknown cluster preset ${JSON.stringify((cluster as { preset: string }).preset)}`,
  });
}
