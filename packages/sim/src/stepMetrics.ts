/**
 * Metrics a real cluster adds to a step: model FLOPs utilisation and memory against the GPU.
 * MFU = model FLOPs of the step / (step time × devices × peak FLOP/s): the achievable fraction
 * of the GPU is not in the denominator (that is what MFU measures), recomputation is not in the
 * numerator (PaLM's definition, which the Llama 3 and DeepSeek-V3 reports follow).
 */
import { type Cluster, expandCluster, type Plan } from '@stagecraft/ir';
import type { DeviceMetrics, Simulation } from './types.ts';

export interface GpuFacts {
  peakFlopsPerSecond: number;
  memoryBytes: number;
}

/** Peak and memory of the cluster's GPU, when it has one (the ideal cluster has none). */
export function gpuFacts(cluster: Cluster): GpuFacts | undefined {
  const r = expandCluster(cluster);
  if (!r.ok || r.cluster.kind !== 'custom') return undefined;
  const { gpu } = r.cluster;
  return { peakFlopsPerSecond: gpu.peakTflops * 1e12, memoryBytes: gpu.memoryGiB * 2 ** 30 };
}

/** Devices in the plan, each replica counted. */
export function devicesOfPlan(plan: Plan): number {
  let n = 0;
  for (const d of plan.devices) if (d.group >= 0) n += 1 + (d.replicas?.length ?? 0);
  return n;
}

export function mfuOf(plan: Plan, makespanMs: number, gpu: GpuFacts | undefined): number | undefined {
  if (!gpu || plan.modelFlopsPerStep === undefined || makespanMs <= 0) return undefined;
  const devices = devicesOfPlan(plan);
  return devices > 0
    ? plan.modelFlopsPerStep / ((makespanMs / 1000) * devices * gpu.peakFlopsPerSecond)
    : undefined;
}

/** One warning per device whose peak memory exceeds its GPU's (devices keep running: it is a prediction). */
export function oomWarnings(devices: DeviceMetrics[], gpu: GpuFacts | undefined): string[] {
  if (!gpu) return [];
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
  const out: string[] = [];
  for (const d of devices) {
    if (d.peakMemoryBytes <= gpu.memoryBytes) continue;
    d.oom = true;
    out.push(
      `device ${d.device}: out of memory, peak ${gib(d.peakMemoryBytes)} over the GPU's ${gib(gpu.memoryBytes)}`,
    );
  }
  return out;
}

/**
 * Exposed communication of the average GPU that runs the design: `exposedCommMs` sums every
 * device, which beside the step time reads as seconds of stall per step on a 2,048-GPU design.
 */
export function exposedCommPerDeviceMs(sim: Pick<Simulation, 'exposedCommMs' | 'devices'>): number {
  let used = 0;
  for (const d of sim.devices) if (d.busyMs > 0) used++;
  return used > 0 ? sim.exposedCommMs / used : 0;
}
