/**
 * The warm-up / steady / cool-down skeleton that 1F1B, interleaved 1F1B and ZB-H1 share (as
 * Megatron's and torch's `_get_1f1b_rank_ops` do): a rank runs `warmup` forwards, then alternates
 * one forward and one backward until its forwards run out, then drains its backwards.
 */
import { action, solo } from './action.ts';
import type { Slot } from './builder.ts';

export interface WarmupSteadyCooldownRank {
  /** This rank, of `ranks`. */
  readonly rank: number;
  readonly ranks: number;
  /**
   * Chunks (virtual stages) per rank, visited in a loop (Megatron's interleaving): the k-th
   * forward runs chunk ⌊k/round⌋ mod v, the j-th backward the chunks in reverse, chunk c being
   * stage c·p + rank.
   */
  readonly chunks: number;
  /**
   * Microbatches a chunk runs before the loop moves to the next chunk: p unless given (torch's
   * `microbatches_per_round`, which lets m be other than a multiple of p).
   */
  readonly round?: number;
  /** Forwards this rank runs: microbatches × its chunks. */
  readonly forwards: number;
  readonly warmup: number;
  /**
   * Zero bubble: split every backward into BI and BW, and let the j-th BI be followed by the
   * oldest pending BW only once j ≥ `weightDelay`, so the deferred BWs fill the cool-down.
   * Undefined keeps fused backwards.
   */
  readonly weightDelay?: number;
}

/** Stage of the k-th forward (`backward`: of the k-th backward) of a rank. */
function stageOf(r: WarmupSteadyCooldownRank, k: number, backward: boolean): number {
  const chunk = Math.floor(k / (r.round ?? r.ranks)) % r.chunks;
  return (backward ? r.chunks - 1 - chunk : chunk) * r.ranks + r.rank;
}

export function warmupSteadyCooldown(rank: WarmupSteadyCooldownRank): Slot[] {
  const { forwards, weightDelay } = rank;
  const warmup = Math.min(rank.warmup, forwards);
  const split = weightDelay !== undefined;
  const program: Slot[] = new Array(split ? 3 * forwards : 2 * forwards);
  let n = 0;
  // Microbatches go through each stage in order, so a per-stage counter names the next one.
  const stages = rank.chunks * rank.ranks;
  const nextForward = new Int32Array(stages);
  const nextBackward = new Int32Array(stages);
  // BWs held back, oldest first: a queue of (stage, microbatch).
  const pendingStage = new Int32Array(split ? forwards : 0);
  const pendingMb = new Int32Array(split ? forwards : 0);
  let head = 0;
  let tail = 0;
  let j = 0;
  for (let k = 0; k < forwards + warmup; k++) {
    // Step k: the k-th forward while forwards remain, and from step `warmup` on the next backward.
    const f = k < forwards ? k : -1;
    if (f >= 0) {
      const stage = stageOf(rank, f, false);
      program[n++] = solo(action('F', stage, nextForward[stage]!++));
    }
    if (k < warmup || j >= forwards) continue;
    const stage = stageOf(rank, j, true);
    const mb = nextBackward[stage]!++;
    if (!split) program[n++] = solo(action('B', stage, mb));
    else {
      program[n++] = solo(action('BI', stage, mb));
      pendingStage[tail] = stage;
      pendingMb[tail++] = mb;
      if (j >= weightDelay) {
        program[n++] = solo(action('BW', pendingStage[head]!, pendingMb[head]!));
        head++;
      }
    }
    j++;
  }
  while (head < tail) {
    program[n++] = solo(action('BW', pendingStage[head]!, pendingMb[head]!));
    head++;
  }
  program.length = n;
  return program;
}
