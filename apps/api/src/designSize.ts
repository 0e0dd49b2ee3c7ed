/**
 * A design's size judged before it reaches a worker, from the few numbers that drive it (blocks,
 * devices, microbatches): a bound checked before the compiler's own op-limit checks run (a
 * preset's million nodes costs seconds and hundreds of MiB before those would), and an estimate
 * of ops the compile pool sorts large work from small by.
 */
import { type Design, deviceCount, type Issue, scheduleOpEstimate, scheduleRanks } from '@stagecraft/ir';
import { modelBlockCount } from '@stagecraft/passes';

export function designSizeIssue(design: Design, maxOps: number): Issue | undefined {
  const limit = maxOps.toLocaleString('en-US');
  const model = design.model;
  if (model.kind === 'synthetic') {
    const blocks = modelBlockCount(model);
    if (2 * blocks > maxOps) {
      return {
        path: 'stages' in model ? 'design.model.stages' : 'design.model.blocks',
        message: `${blocks.toLocaleString('en-US')} blocks make at least ${(2 * blocks).toLocaleString('en-US')} ops, over the limit of ${limit}`,
      };
    }
  }
  const devices = deviceCount(design.cluster);
  if (devices > maxOps) {
    const c = design.cluster;
    return {
      path: 'kind' in c && c.kind === 'ideal' ? 'design.cluster.devices' : 'design.cluster.nodes',
      message: `${devices.toLocaleString('en-US')} devices are more than the op limit of ${limit} allows`,
    };
  }
  return undefined;
}

/**
 * About how many ops the design compiles to: each schedule's estimate by the compiler's own rule
 * (ir's scheduleOpEstimate) over the blocks the compiler lowers the model to, plus one per
 * hand-written directive. Only the order of magnitude matters.
 */
export function estimatedOps(design: Design): number {
  const blocks = modelBlockCount(design.model);
  let ops = 0;
  for (const d of design.directives) {
    ops +=
      d.op === 'schedule' ? scheduleOpEstimate(d.microbatches, blocks, scheduleRanks(d, design.cluster)) : 1;
  }
  return ops;
}
