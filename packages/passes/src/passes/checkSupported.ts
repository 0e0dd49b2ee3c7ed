/**
 * `check-supported`: refuses, before any rewrite runs, a design whose costs cannot be timed. A
 * transformer's costs are FLOPs, and the ideal cluster has no GPU to run them on; failing here
 * names the cluster rather than some later pass that first reads a cost.
 */
import { CompileError } from '@stagecraft/ir';
import type { Pass } from '../driver/pass.ts';

export const checkSupportedPass: Pass = {
  name: 'check-supported',
  // The model and the cluster only, which every pass may read.
  reads: [],
  writes: [],
  run(dag, ctx) {
    const { model, cluster } = ctx.design;
    if (model.kind === 'transformer' && 'kind' in cluster && cluster.kind === 'ideal')
      throw new CompileError({
        path: 'cluster.kind',
        message:
          'a transformer model costs FLOPs, and the ideal cluster has no GPU to time them: use a preset (e.g. {"preset": "dgx-h100", "nodes": 1}) or a custom cluster',
      });
    return dag;
  },
};
