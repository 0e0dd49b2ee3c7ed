/**
 * An edit that makes the design a hundred times larger asks first: "1e3" typed for 8 microbatches
 * compiles 20,004 ops instead of 164, and the page is busy drawing them before the user sees the
 * typo. Sizes are the compiler's own estimate before anything is built (passes' estimatedOps, the
 * one the API and the CLI refuse designs by).
 */
import type { Design } from '@stagecraft/ir';
import { estimatedOps } from '@stagecraft/passes';
import type { Confirmation } from './action.ts';
import { formatCount } from './format.ts';

/** How much larger an edit may make the design without asking (issue 30: "100× larger"). */
export const ASK_ABOVE_GROWTH = 100;

/** The question to ask before `after` replaces `before`, or undefined when it grows less. */
export function sizeGrowth(before: Design, after: Design): Confirmation | undefined {
  const from = estimatedOps(before);
  const to = estimatedOps(after);
  if (from <= 0 || to < ASK_ABOVE_GROWTH * from) return undefined;
  const n = formatCount;
  return {
    title: `Compile a design ${n(to / from)}× larger?`,
    message: `The edit makes the design about ${n(to)} ops, ${n(to / from)}× the ${n(from)} it has now: compiling and drawing it takes a while.`,
    items: [],
    accept: 'Compile it',
  };
}
