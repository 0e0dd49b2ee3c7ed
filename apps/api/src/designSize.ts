/**
 * A bound on a design's size checked before it reaches a worker: the model's blocks and the
 * cluster's devices each cost ops (and memory) before the compiler's own op-limit checks run.
 */
import type { Design, Issue } from '@stagecraft/ir';

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
  const c = design.cluster;
  const devices =
    'kind' in c && c.kind === 'ideal' ? c.devices : 'gpusPerNode' in c ? c.nodes * c.gpusPerNode : c.nodes;
  if (devices > maxOps) {
    return {
      path: 'kind' in c && c.kind === 'ideal' ? 'design.cluster.devices' : 'design.cluster.nodes',
      message: `${devices.toLocaleString('en-US')} devices are more than the op limit of ${limit} allows`,
    };
  }
  return undefined;
}
