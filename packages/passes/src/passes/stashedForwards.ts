/**
 * The forwards a `recompute` or `offload` directive covers. Both act on what a forward stashes
 * for its backward, so the filter's PASS may only be F (or `*`), and a filter that matches no
 * forward is an error rather than a silent no-op.
 */
import { CompileError, type Filter, formatPath, type PathSegment } from '@stagecraft/ir';
import type { NodeIndex } from '../nodeIndex.ts';

/**
 * Node indices of the matched forwards; `purpose` completes the PASS error, e.g.
 * "recompute re-runs forwards".
 */
export function stashedForwards(
  index: NodeIndex,
  filter: Filter,
  path: readonly PathSegment[],
  purpose: string,
): number[] {
  const pass = filter.PASS;
  if (pass !== undefined && pass !== 'F' && pass !== '*')
    throw new CompileError({
      path: formatPath([...path, 'filter', 'PASS']),
      message: `${purpose}; PASS must be F, not ${pass}`,
    });
  const fs = index.match({ ...filter, PASS: 'F' }, [...path, 'filter']);
  if (fs.length === 0)
    throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no forward op' });
  return fs;
}
