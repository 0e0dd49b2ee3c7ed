/**
 * An imported schedule's size, judged from the few numbers a file states (its largest stage,
 * microbatch and device, the model's layers) before any block, op or device is built: a 28-byte
 * CSV naming microbatch 9,999,999 or a Piper `place` on device 999,999,999 once took minutes and
 * gigabytes to fail. The estimate is the compiler's own (ir's design facts, `scheduleOpEstimate`).
 */
import { type Cluster, clusterDevices as countDevices, type Issue, scheduleOpEstimate } from '@stagecraft/ir';
import { DEFAULT_MAX_OPS } from '../compile/pipeline.ts';

export interface ImportSize {
  /** Blocks (PP regions) the schedule runs, and where the file states them. */
  blocks: { count: number; path: string };
  microbatches: { count: number; path: string };
  /** Devices the schedule places on (the largest device index + 1), if it names any. */
  devices?: { count: number; path: string };
}

const n = (x: number) => x.toLocaleString('en-US');

export function importSizeIssue(size: ImportSize, maxOps = DEFAULT_MAX_OPS): Issue | undefined {
  const { blocks, microbatches, devices } = size;
  if (devices && devices.count > maxOps)
    return {
      path: devices.path,
      message: `${n(devices.count)} devices are more than the op limit of ${n(maxOps)} allows`,
    };
  // Without a stated device count the blocks are taken to sit on devices of their own (the most
  // transfers the schedule can need).
  const ops = scheduleOpEstimate(microbatches.count, blocks.count, devices?.count ?? blocks.count);
  if (ops > maxOps) {
    const at = blocks.count >= microbatches.count ? blocks : microbatches;
    return {
      path: at.path,
      message: `${n(blocks.count)} stages × ${n(microbatches.count)} microbatches would make about ${n(ops)} ops, over the limit of ${n(maxOps)}`,
    };
  }
  return undefined;
}

/** Devices of a given cluster; one that cannot be counted counts 0 here and fails compile's own check. */
export function clusterDevices(cluster: Cluster): number {
  const r = countDevices(cluster);
  return r.ok ? r.devices : 0;
}
