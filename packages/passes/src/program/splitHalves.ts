/**
 * The backwards a `split_backward` directive split, as an order reads them: a slot naming such a
 * region's fused B means its halves, BI in that slot and BW in a slot right after it, so a
 * schedule written with fused backwards composes with `split_backward` instead of having to be
 * rewritten slot by slot. Backwards split only because an order names BI or BW (Piper's rule)
 * are not among them: that order already says where each half runs.
 */
import { type Dag, tableOf } from '@stagecraft/ir';
import type { ExpandedDirective } from '../driver/compileTypes.ts';
import { NodeIndex } from './nodeIndex.ts';
import { directivesOf } from './program.ts';

/**
 * 1 at every BI and BW node of a backward some `split_backward` of `program` split, or undefined
 * when the program has none. `dag` is any DAG after the split-backward pass.
 */
export function splitHalves(dag: Dag, program: readonly ExpandedDirective[]): Uint8Array | undefined {
  const splits = directivesOf(program, 'split_backward');
  if (splits.length === 0) return undefined;
  const index = NodeIndex.of(dag);
  const marked = new Uint8Array(tableOf(dag).length);
  for (const { d, path } of splits) {
    // The split-backward pass has already refused a filter that does not resolve.
    for (const n of index.match({ ...d.filter, PASS: 'BI' }, [...path, 'filter'])) marked[n] = 1;
    for (const n of index.match({ ...d.filter, PASS: 'BW' }, [...path, 'filter'])) marked[n] = 1;
  }
  return marked;
}
