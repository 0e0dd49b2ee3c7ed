/**
 * What a split_backward drop does to an explicit order: every slot that runs the region's fused B
 * runs BI there and BW in a slot right after it, so the input gradient leaves as soon as BI ends.
 * The drop applies it, and the builder switch applies it again to tell such orders from hand edits.
 */
import type { Filter } from '@stagecraft/ir';
import { filterMatches } from './filterMatch.ts';

/** A predicate for the fused backwards of `region` named by an order slot. */
export function fusedBackwardOf(region: Filter): (f: Filter) => boolean {
  return (f) => f.PASS === 'B' && filterMatches(region, f as Record<string, number | string>);
}

/** The slots with `isFusedB`'s backwards split, or undefined when no slot names one. */
export function splitOrderBackward(
  slots: readonly (readonly Filter[])[],
  isFusedB: (f: Filter) => boolean,
): Filter[][] | undefined {
  if (!slots.some((slot) => slot.some(isFusedB))) return undefined;
  const out: Filter[][] = [];
  for (const slot of slots) {
    const fused = slot.filter(isFusedB);
    if (fused.length === 0) {
      out.push(slot.slice());
      continue;
    }
    out.push(slot.map((f) => (isFusedB(f) ? { ...f, PASS: 'BI' } : f)));
    out.push(fused.map((f) => ({ ...f, PASS: 'BW' })));
  }
  return out;
}
