import type { BuilderInput } from './builder.ts';
import { linearPlacement } from './placement.ts';
import { rankwiseBuilder } from './rankwise.ts';
import { type WarmupSteadyCooldownRank, warmupSteadyCooldown } from './warmupSteadyCooldown.ts';

/**
 * 1F1B (PipeDream-Flush, Megatron's default): rank r runs min(m, p−r−1) warm-up forwards, then
 * one forward and one fused backward at a time, then drains. At most p−r activations are stashed.
 */
export const oneFOneB = rankwiseBuilder({
  name: '1f1b',
  summary: '1F1B: warm-up forwards, then one forward / one backward; p activations on rank 0',
  defaultChunks: 1,
  fixedChunks: 1,
  placement: (input) => linearPlacement(input.ranks),
  program: (input, rank) => warmupSteadyCooldown(oneFOneBRank(input, rank)),
});

/** Rank `rank`'s 1F1B skeleton: what ZB-H1 runs too, with its backwards split. */
export function oneFOneBRank({ ranks, microbatches }: BuilderInput, rank: number): WarmupSteadyCooldownRank {
  return {
    forwards: microbatches,
    warmup: Math.min(microbatches, ranks - rank - 1),
    rank,
    ranks,
    chunks: 1,
  };
}
