/**
 * A design's size judged before it reaches a worker, from the few numbers that drive it (blocks,
 * devices, microbatches): a bound checked before the compiler's own op-limit checks run (a
 * preset's million nodes costs seconds and hundreds of MiB before those would), and an estimate
 * of ops the compile pool sorts large work from small by.
 */
import { CLUSTER_PRESETS, type Design, type Issue, TRANSFORMER_PRESETS } from '@stagecraft/ir';

export function designSizeIssue(design: Design, maxOps: number): Issue | undefined {
  const limit = maxOps.toLocaleString('en-US');
  const model = design.model;
  if (model.kind === 'synthetic') {
    const blocks = 'stages' in model ? model.stages : model.blocks.length;
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
 * About how many ops the design compiles to: per microbatch of each schedule, a forward and two
 * backward passes per block and a send and a receive each way between blocks (the compiler's own
 * estimate), plus one per hand-written directive. Only the order of magnitude matters.
 */
export function estimatedOps(design: Design): number {
  const blocks = blockCount(design.model);
  let ops = 0;
  for (const d of design.directives) {
    ops += d.op === 'schedule' ? d.microbatches * (3 * blocks + 4 * Math.max(0, blocks - 1)) : 1;
  }
  return ops;
}

function blockCount(model: Design['model']): number {
  if (model.kind === 'synthetic') return 'stages' in model ? model.stages : model.blocks.length;
  const preset =
    model.preset !== undefined && Object.hasOwn(TRANSFORMER_PRESETS, model.preset)
      ? TRANSFORMER_PRESETS[model.preset]
      : undefined;
  const layers = (model.layers ?? preset?.layers ?? 1) + (model.mtpLayers ?? preset?.mtpLayers ?? 0);
  // Attention and MLP per layer, and the embedding and the head.
  return 2 * layers + 2;
}

/** Devices of a cluster in any form: a preset's nodes each hold its GPUs per node. */
function deviceCount(c: Design['cluster']): number {
  if ('kind' in c && c.kind === 'ideal') return c.devices;
  if ('gpusPerNode' in c) return c.nodes * c.gpusPerNode;
  if ('preset' in c && Object.hasOwn(CLUSTER_PRESETS, c.preset)) {
    return c.nodes * CLUSTER_PRESETS[c.preset]!.gpusPerNode;
  }
  return c.nodes;
}
