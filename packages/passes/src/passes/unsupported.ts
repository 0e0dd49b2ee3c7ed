/**
 * Directives whose rewrites this compiler does not perform yet are refused by name rather than
 * silently ignored, so a program never compiles to something other than what it says. So is a
 * design whose costs cannot be timed: a transformer's costs are FLOPs, and the ideal cluster has
 * no GPU to run them on.
 */
import { CompileError, formatPath, type Issue } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';

const PENDING = new Set<string>();

export const refusePendingPass: Pass = {
  name: 'check-supported',
  run(dag, ctx) {
    const issues: Issue[] = ctx.program
      .filter((e) => PENDING.has(e.directive.op))
      .map((e) => ({
        path: formatPath([...e.path, 'op']),
        message: `${e.directive.op} is not supported by this compiler yet`,
      }));
    const { model, cluster } = ctx.design;
    if (model.kind === 'transformer' && 'kind' in cluster && cluster.kind === 'ideal')
      issues.unshift({
        path: 'cluster.kind',
        message:
          'a transformer model costs FLOPs, and the ideal cluster has no GPU to time them: use a preset (e.g. {"preset": "dgx-h100", "nodes": 1}) or a custom cluster',
      });
    if (issues.length > 0) throw new CompileError(issues);
    return dag;
  },
};
