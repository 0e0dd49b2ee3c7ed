/**
 * V-Half and V-Min (Qi et al. 2024, "Pipeline Parallelism with Controllable Memory"): V placement
 * with two chunks per rank, whose activation memory is capped at a fraction of 1F1B's p
 * microbatches. The paper builds them from repeated building blocks tuned per p; we build a
 * schedule for any p and m with the unit-time greedy (BI, then F, then BW) under the cap, so the
 * cap holds exactly and the step is as short as that greedy finds.
 */
import type { BuilderInput, BuiltSchedule } from './builder.ts';
import { memoryCappedGreedy } from './memoryCappedGreedy.ts';
import { vPlacement } from './placement.ts';

/**
 * @param fullMicrobatches activations a rank may hold, in microbatches of one full stage; a
 * chunk is half a stage, so the cap is twice that in chunk activations.
 */
export function controllableMemoryV(
  { ranks, microbatches }: BuilderInput,
  fullMicrobatches: number,
): BuiltSchedule {
  const placement = vPlacement(ranks);
  const programs = memoryCappedGreedy({ placement, microbatches, stashCap: () => 2 * fullMicrobatches });
  return { placement, programs };
}
