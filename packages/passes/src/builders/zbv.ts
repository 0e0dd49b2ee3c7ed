import { action, solo } from './action.ts';
import type { Action, ScheduleBuilder } from './builder.ts';
import { vPlacement, vStagesOfRank } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * ZB-V (Qi et al., ICLR 2024 §6; torch ScheduleZBVZeroBubble): V placement with two chunks per
 * rank, split backwards, and a fixed pattern that has no bubble inside a rank's span when
 * F = BI = BW. The pattern needs 2p−1 microbatches to fill; with fewer, torch runs the pattern
 * for 2p−1 and drops the missing microbatches' actions, and so do we (the rank simply has fewer
 * slots, so its order is unchanged for the microbatches that exist).
 */
export const zbv: ScheduleBuilder = {
  name: 'zbv',
  summary: 'Zero Bubble V: two chunks per rank in a V, split backward; p activations',
  directions: 1,
  defaultChunks: 2,
  fixedChunks: 2,
  check(input) {
    return commonProblems(zbv, input);
  },
  build(input) {
    assertBuildable(zbv, input);
    const { ranks, microbatches } = input;
    const programs = Array.from({ length: ranks }, (_, rank) =>
      zbvRank(ranks, rank, microbatches)
        .filter((a) => a.mb < microbatches)
        .map(solo),
    );
    return { placement: vPlacement(ranks), programs };
  },
};

function zbvRank(ranks: number, rank: number, microbatches: number): Action[] {
  const mbs = Math.max(2 * ranks - 1, microbatches);
  const { chunk0, chunk1 } = vStagesOfRank(ranks, rank);
  const ops: Action[] = [];
  let f0 = 0;
  let f1 = 0;
  let b0 = 0;
  let b1 = 0;
  const F0 = () => ops.push(action('F', chunk0, f0++));
  const F1 = () => ops.push(action('F', chunk1, f1++));

  // Warm-up: fill the V down to the last rank, then start feeding chunk 1 on the way back.
  for (let i = 0; i < 2 * (ranks - rank) - 1; i++) F0();
  for (let i = 0; i < rank; i++) {
    F1();
    F0();
  }
  for (let i = 0; i < ranks - rank; i++) {
    F1();
    ops.push(action('BI', chunk1, b1), action('BW', chunk1, b1));
    b1++;
  }
  // Steady: a forward and a whole backward of each chunk in turn.
  while (f1 < f0 || f0 < mbs) {
    if (f0 < mbs) F0();
    ops.push(action('BI', chunk0, b0), action('BW', chunk0, b0));
    b0++;
    F1();
    ops.push(action('BI', chunk1, b1), action('BW', chunk1, b1));
    b1++;
  }
  // Cool-down: input gradients first (they are on the critical path), weights fill behind.
  let w0 = b0;
  let w1 = b1;
  for (let i = 0; i < rank; i++) ops.push(action('BI', chunk0, b0++), action('BI', chunk1, b1++));
  for (let i = 0; i < ranks - rank; i++) ops.push(action('BI', chunk0, b0++), action('BW', chunk0, w0++));
  while (w1 < b1) ops.push(action('BW', chunk1, w1++));
  while (w0 < b0) ops.push(action('BW', chunk0, w0++));
  return ops;
}
