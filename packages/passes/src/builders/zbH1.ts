import { oneFOneBRank } from './oneFOneB.ts';
import { linearPlacement } from './placement.ts';
import { rankwiseBuilder } from './rankwise.ts';
import { warmupSteadyCooldown } from './warmupSteadyCooldown.ts';

/**
 * ZB-H1 (Qi et al., ICLR 2024; torch's ZB1P with one chunk): 1F1B with every backward split into
 * BI and BW. BI stays on 1F1B's critical path; rank r holds back its BWs for r steady steps (the
 * oldest pending BW follows each BI only from the r-th on) so the deferred BWs fill the
 * cool-down bubbles. Same p activations as 1F1B; bubble (p−1)(F+BI−BW).
 */
export const zbH1 = rankwiseBuilder({
  name: 'zb-h1',
  summary: 'Zero Bubble H1: 1F1B with split backward, BW fills the cool-down; 1F1B memory',
  defaultChunks: 1,
  fixedChunks: 1,
  placement: (input) => linearPlacement(input.ranks),
  program: (input, rank) => warmupSteadyCooldown({ ...oneFOneBRank(input, rank), weightDelay: rank }),
});
