/**
 * A design's size judged before anything is built, from the few numbers that drive it (blocks,
 * devices, microbatches): the API (a 413) and the CLI (exit 1) refuse a design by it before the
 * compiler's own op-limit checks run, since lowering a model of ten million layers or expanding a
 * preset of a hundred million nodes exhausts the heap before those would. Also an estimate of
 * ops the API's compile pool sorts large work from small by.
 */
import { clusterDevices, type Design, type Issue, scheduleOpEstimate, scheduleRanks } from '@stagecraft/ir';
import { modelBlockCount } from '../model/lowerModel.ts';
import { DEFAULT_MAX_OPS } from './pipeline.ts';

/** The field that sets how many blocks the model lowers to: what the user edits to shrink it. */
function blockCountPath(model: Design['model']): string {
  if (model.kind === 'transformer') return 'design.model.layers';
  return 'stages' in model ? 'design.model.stages' : 'design.model.blocks';
}

/**
 * Why the design is too large for `maxOps`, named at the field to change; undefined when it is
 * not. Every block makes at least a forward and a backward op, and every device is a rank the
 * compiler builds tables for.
 */
export function designSizeIssue(design: Design, maxOps: number = DEFAULT_MAX_OPS): Issue | undefined {
  // Formatted only for a message: the first toLocaleString of a process loads the locale data, a
  // tenth of a one-shot command's start (`stagecraft validate`'s profile, issue 34).
  const limit = () => maxOps.toLocaleString('en-US');
  const blocks = modelBlockCount(design.model);
  if (2 * blocks > maxOps) {
    return {
      path: blockCountPath(design.model),
      message: `${blocks.toLocaleString('en-US')} blocks make at least ${(2 * blocks).toLocaleString('en-US')} ops, over the limit of ${limit()}`,
    };
  }
  // An unknown preset has no devices to count: the compile names it.
  const devices = clusterDevices(design.cluster);
  if (devices.ok && devices.devices > maxOps) {
    const c = design.cluster;
    return {
      path: 'kind' in c && c.kind === 'ideal' ? 'design.cluster.devices' : 'design.cluster.nodes',
      message: `${devices.devices.toLocaleString('en-US')} devices are more than the op limit of ${limit()} allows`,
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
