/**
 * The eight steps of DeepSeek's DualPipe (dualpipe.py) for one rank, shared by DualPipeV and the
 * bidirectional DualPipe. A rank holds two chunks: chunk 0 is stage h of a pipeline of 2n stages
 * and chunk 1 is its stage 2n−1−h, so a microbatch passes the rank on the way down (chunk 0) and
 * again on the way back (chunk 1). DualPipeV is one such V on n ranks (h = r); DualPipe lays two
 * mirrored Vs over N = 2n ranks, each rank at h = min(r, N−1−r) in both.
 *
 * The steady state overlaps a forward of one chunk with a backward of the other (F&B), which
 * hides each one's communication behind the other's compute.
 */
import { action, overlapped, solo } from './action.ts';
import type { Action, ActionPass, Slot } from './builder.ts';

export interface DualPipeRank {
  /** Ranks of one V: n. */
  readonly vRanks: number;
  /** The rank's position h in its V, 0 ≤ h < n. */
  readonly h: number;
  /** Microbatches through each chunk; at least 2n. */
  readonly microbatches: number;
  readonly chunk0: ChunkId;
  readonly chunk1: ChunkId;
}

/** The (direction, stage) an action of a chunk carries. */
export interface ChunkId {
  readonly stage: number;
  readonly dir?: 0 | 1;
}

export function dualPipeSteps({ vRanks: n, h, microbatches, chunk0, chunk1 }: DualPipeRank): Slot[] {
  const program: Slot[] = [];
  const chunks = [chunk0, chunk1] as const;
  // Each chunk sees microbatches in order, so counters name the next forward and backward.
  const nextForward = [0, 0];
  const nextBackward = [0, 0];
  // Deferred weight gradients, run oldest first (DualPipe's WeightGradStore is a FIFO).
  const weights: Action[] = [];

  const forwardOf = (chunk: 0 | 1) => {
    const { stage, dir } = chunks[chunk];
    return action('F', stage, nextForward[chunk]!++, dir);
  };
  /** A backward, fused, or only its input half with the weight half queued. */
  const backwardOf = (chunk: 0 | 1, split: boolean) => {
    const { stage, dir } = chunks[chunk];
    const mb = nextBackward[chunk]!++;
    const pass: ActionPass = split ? 'BI' : 'B';
    if (split) weights.push(action('BW', stage, mb, dir));
    return action(pass, stage, mb, dir);
  };
  const F = (chunk: 0 | 1) => program.push(solo(forwardOf(chunk)));
  const B = (chunk: 0 | 1, split = false) => program.push(solo(backwardOf(chunk, split)));
  /** F of one chunk overlapped with the fused B of the other. */
  const FandB = (forward: 0 | 1) => {
    const f = forwardOf(forward);
    program.push(overlapped(f, backwardOf(forward === 0 ? 1 : 0, false)));
  };
  const W = () => {
    const oldest = weights.shift();
    if (oldest === undefined) throw new Error('dualpipe: a weight step found no deferred backward');
    program.push(solo(oldest));
  };

  // 1. Chunk-0 forwards until the first microbatch can turn round at the bottom of the V.
  for (let i = 0; i < 2 * (n - h - 1); i++) F(0);
  // 2. Forwards of both chunks, alternating.
  for (let i = 0; i < h + 1; i++) {
    F(0);
    F(1);
  }
  // 3. Chunk-1 backwards split (zero bubble), each weight half run at once, then a chunk-1 forward.
  for (let i = 0; i < n - h - 1; i++) {
    B(1, true);
    W();
    F(1);
  }
  // 4. Main step: F0&B1 then F1&B0. The middle of the V runs its very first pair unoverlapped:
  // its B1 needs the F0 just before it, so overlapping them would only stretch the bubble.
  for (let i = 0; i < microbatches - 2 * n + h + 1; i++) {
    if (i === 0 && h === n - 1) {
      F(0);
      B(1);
    } else {
      FandB(0);
    }
    FandB(1);
  }
  // 5. Chunk-0 forwards are done: B1 then F1&B0.
  for (let i = 0; i < n - h - 1; i++) {
    B(1);
    FandB(1);
  }
  // 6. Backwards of both chunks; from the middle of this step on they are split, and their weight
  // halves are kept for the bubbles of steps 7 and 8.
  let split = false;
  const half = Math.floor((h + 1) / 2);
  for (let i = 0; i < h + 1; i++) {
    if (i === half && h % 2 === 1) split = true;
    B(1, split);
    if (i === half && h % 2 === 0) split = true;
    B(0, split);
  }
  // 7. A deferred weight, then a chunk-0 input backward.
  for (let i = 0; i < n - h - 1; i++) {
    W();
    B(0, true);
  }
  // 8. The remaining weights.
  for (let i = 0; i < h + 1; i++) W();
  return program;
}
