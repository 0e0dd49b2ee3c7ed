/**
 * Directives whose rewrites this compiler does not perform yet are refused by name rather than
 * silently ignored, so a program never compiles to something other than what it says.
 */
import { CompileError, formatPath } from '@stagecraft/ir';
import type { Pass } from '../pass.ts';

const PENDING = new Set<string>();

export const refusePendingPass: Pass = {
  name: 'check-supported',
  run(dag, ctx) {
    const issues = ctx.program
      .filter((e) => PENDING.has(e.directive.op))
      .map((e) => ({
        path: formatPath([...e.path, 'op']),
        message: `${e.directive.op} is not supported by this compiler yet`,
      }));
    if (issues.length > 0) throw new CompileError(issues);
    return dag;
  },
};
