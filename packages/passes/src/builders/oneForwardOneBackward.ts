/**
 * The warm-up / steady / cool-down skeleton that 1F1B, interleaved 1F1B and ZB-H1 share (as
 * Megatron's and torch's `_get_1f1b_rank_ops` do): a rank runs `warmup` forwards, then alternates
 * one forward and one backward until its forwards run out, then drains its backwards.
 */
import { action, solo } from './action.ts';
import type { Slot } from './builder.ts';

export interface OneForwardOneBackwardRank {
  /** Forwards this rank runs: microbatches × its chunks. */
  readonly forwards: number;
  readonly warmup: number;
  /** Stage of the k-th forward of the rank (k counts all its forwards). */
  readonly forwardStage: (k: number) => number;
  /** Stage of the j-th backward of the rank (j counts all its backwards). */
  readonly backwardStage: (j: number) => number;
  /**
   * Zero bubble: split every backward into BI and BW, and let the j-th BI be followed by the
   * oldest pending BW only once j ≥ `weightDelay`, so the deferred BWs fill the cool-down.
   * Undefined keeps fused backwards.
   */
  readonly weightDelay?: number;
}

export function oneForwardOneBackward(rank: OneForwardOneBackwardRank): Slot[] {
  const program: Slot[] = [];
  // Microbatches go through each stage in order, so a per-stage counter names the next one.
  const nextForward: number[] = [];
  const nextBackward: number[] = [];
  const pendingWeights: { stage: number; mb: number }[] = [];
  const take = (counters: number[], stage: number): number => {
    const mb = counters[stage] ?? 0;
    counters[stage] = mb + 1;
    return mb;
  };

  const forward = (k: number) => {
    const stage = rank.forwardStage(k);
    program.push(solo(action('F', stage, take(nextForward, stage))));
  };
  const backward = (j: number) => {
    const stage = rank.backwardStage(j);
    const mb = take(nextBackward, stage);
    if (rank.weightDelay === undefined) {
      program.push(solo(action('B', stage, mb)));
      return;
    }
    program.push(solo(action('BI', stage, mb)));
    pendingWeights.push({ stage, mb });
    if (j >= rank.weightDelay) weight();
  };
  const weight = () => {
    const oldest = pendingWeights.shift()!;
    program.push(solo(action('BW', oldest.stage, oldest.mb)));
  };

  for (let k = 0; k < rank.warmup; k++) forward(k);
  for (let k = rank.warmup; k < rank.forwards; k++) {
    forward(k);
    backward(k - rank.warmup);
  }
  for (let j = rank.forwards - rank.warmup; j < rank.forwards; j++) backward(j);
  while (pendingWeights.length > 0) weight();
  return program;
}
