import type { Directive, DirectiveOf, DirectiveOp, PathSegment } from '@stagecraft/ir';
import type { ExpandedDirective } from '../driver/compileTypes.ts';

/** The stream a collective a directive adds runs on when the directive names none. */
export const DEFAULT_COMM_STREAM = 'compute';

/** Directives of one kind from the expanded program, with their index in it. */
export function directivesOf<K extends DirectiveOp>(
  program: readonly ExpandedDirective[],
  op: K,
): { d: DirectiveOf<K>; index: number; path: PathSegment[] }[] {
  const out: { d: DirectiveOf<K>; index: number; path: PathSegment[] }[] = [];
  program.forEach((e, index) => {
    if (e.directive.op === op) out.push({ d: e.directive as DirectiveOf<K>, index, path: e.path });
  });
  return out;
}

export function isEnabled(d: Directive): boolean {
  return d.enabled !== false;
}
