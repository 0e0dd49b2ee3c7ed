/**
 * The forwards the `recompute` or `offload` directives cover, each once: the first directive that
 * matches a forward claims it. Both act on what a forward stashes for its backward, so a filter's
 * PASS may only be F (or `*`), and a filter that matches no forward is an error rather than a
 * silent no-op. Yielded directive by directive, so a directive's errors come when it is reached.
 */
import {
  CompileError,
  type Dag,
  type DirectiveOf,
  formatPath,
  type PathSegment,
  type Provenance,
} from '@stagecraft/ir';
import { NodeIndex } from './nodeIndex.ts';

export interface StashedForward<K extends 'recompute' | 'offload'> {
  /** Node index of the forward. */
  readonly f: number;
  readonly d: DirectiveOf<K>;
  readonly provenance: Provenance;
}

/** `purpose` completes the PASS error, e.g. "recompute re-runs forwards". */
export function* stashedForwards<K extends 'recompute' | 'offload'>(
  dag: Dag,
  list: readonly { d: DirectiveOf<K>; index: number; path: PathSegment[] }[],
  pass: string,
  purpose: string,
): Generator<StashedForward<K>> {
  const index = new NodeIndex(dag);
  const done = new Set<number>();
  for (const { d, index: di, path } of list) {
    const filter = (d as DirectiveOf<'recompute' | 'offload'>).filter;
    const p = filter.PASS;
    if (p !== undefined && p !== 'F' && p !== '*')
      throw new CompileError({
        path: formatPath([...path, 'filter', 'PASS']),
        message: `${purpose}; PASS must be F, not ${p}`,
      });
    const fs = index.match({ ...filter, PASS: 'F' }, [...path, 'filter']);
    if (fs.length === 0)
      throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no forward op' });
    const provenance = { pass, directive: di };
    for (const f of fs) {
      if (done.has(f)) continue;
      done.add(f);
      yield { f, d, provenance };
    }
  }
}
