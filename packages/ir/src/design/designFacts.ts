/**
 * Facts of a design that the compiler, the API's size check and the designer all need, stated
 * once: how many devices its cluster has, how many ranks a schedule runs on, and about how many
 * ops a schedule compiles to.
 */

import { CompileError, type Issue } from '../issue/issue.ts';
import type { Cluster } from './cluster.ts';
import { expandCluster } from './clusterPresets.ts';
import type { ScheduleDirective } from './directive.ts';

/**
 * Devices of a cluster: an ideal cluster's count, else nodes × GPUs per node (a preset's GPUs
 * per node are its node's, clusterPresets.ts). An unknown preset has none to count.
 */
export function clusterDevices(
  cluster: Cluster,
): { ok: true; devices: number } | { ok: false; errors: Issue[] } {
  const r = expandCluster(cluster);
  if (!r.ok) return r;
  const c = r.cluster;
  return { ok: true, devices: c.kind === 'ideal' ? c.devices : c.nodes * c.gpusPerNode };
}

/** Devices of a cluster; throws CompileError for an unknown preset. */
export function deviceCount(cluster: Cluster): number {
  const r = clusterDevices(cluster);
  if (!r.ok) throw new CompileError(r.errors);
  return r.devices;
}

/**
 * The pipeline ranks a schedule runs on: as given, else one per device group, else one per
 * device of the cluster (then throws CompileError for an unknown preset).
 */
export function scheduleRanks(
  schedule: Pick<ScheduleDirective, 'ranks' | 'groups'>,
  cluster: Cluster,
): number {
  return schedule.ranks ?? schedule.groups?.length ?? deviceCount(cluster);
}

/**
 * About how many ops a schedule of `blocks` blocks over `ranks` ranks compiles to: per
 * microbatch, up to three passes per block (F, BI, BW) and, between consecutive blocks on
 * different ranks, a SEND and a RECV each way. The compiler refuses a schedule over its op limit
 * by this before building anything; the API sorts large work from small by it.
 */
export function scheduleOpEstimate(microbatches: number, blocks: number, ranks: number): number {
  return microbatches * (3 * blocks + (ranks > 1 ? 4 * Math.max(0, blocks - 1) : 0));
}
