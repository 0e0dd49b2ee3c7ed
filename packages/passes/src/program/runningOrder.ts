/**
 * An order's slots as its rank runs them. A slot naming the fused B of a region `split_backward`
 * split runs BI there and BW in a slot right after (splitHalves.ts); writing those halves out
 * gives slots an edit or a timeline move can name one by one, and that compile to the same plan.
 *
 * Which Bs are split is read from the filters alone, before any DAG exists: a slot's B is split
 * when a split_backward's filter names only keys the slot's filter has, with its values or `*`
 * (a region, as a palette drop writes it: `{ PP: 1 }`). A split_backward that names other block
 * tags splits in the compiler all the same, but its halves are not written out here.
 */
import type { Filter } from '@stagecraft/ir';

/** Whether region filter `region` selects every op the slot filter `f` names. */
export function regionHolds(region: Filter, f: Filter): boolean {
  for (const [k, v] of Object.entries(region)) {
    const w = f[k];
    if (w === undefined || (v !== '*' && v !== w)) return false;
  }
  return true;
}

/** A predicate for slot filters naming the fused B of a region one of `regions` splits. */
export function fusedBackwardIn(regions: readonly Filter[]): (f: Filter) => boolean {
  return (f) => f.PASS === 'B' && regions.some((r) => regionHolds(r, f));
}

/**
 * The slots with every B `isFusedB` holds written as its halves: BI in the B's slot, the slot's
 * BWs together in a slot right after it. Undefined when no slot names such a B.
 */
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
