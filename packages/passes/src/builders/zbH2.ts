import type { ScheduleBuilder } from './builder.ts';
import { memoryCappedGreedy } from './memoryCappedGreedy.ts';
import { linearPlacement } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * ZB-H2 (Qi et al., ICLR 2024): Zero Bubble with the memory of up to 2p−1 stashed microbatches.
 * The extra warm-up forwards keep every rank busy until the first input gradient comes back
 * (rank r runs 2(p−r)−1 of them), and the BWs are pushed into the tail, turning the 1F1B
 * trapezoid into a parallelogram: with F = BI = BW and m ≥ 2p−1 each rank works without a gap
 * from its first op to its last, and the step takes m(F+B) + (p−1)F.
 *
 * The paper draws the schedule by hand; we derive it with the unit-time greedy (BI, then F,
 * then BW) under a stash cap of 2p−1, which reproduces that warm-up and the parallelogram.
 */
export const zbH2: ScheduleBuilder = {
  name: 'zb-h2',
  summary: 'Zero Bubble H2: extra warm-up forwards, BW fills every bubble; up to 2p−1 activations',
  directions: 1,
  defaultChunks: 1,
  fixedChunks: 1,
  check(input) {
    return commonProblems(zbH2, input);
  },
  build(input) {
    assertBuildable(zbH2, input);
    const { ranks, microbatches } = input;
    const placement = linearPlacement(ranks);
    const programs = memoryCappedGreedy({ placement, microbatches, stashCap: () => 2 * ranks - 1 });
    return { placement, programs };
  },
};
