import type { BuilderInput } from './builder.ts';
import { loopPlacement } from './placement.ts';
import { rankwiseBuilder } from './rankwise.ts';
import { warmupSteadyCooldown } from './warmupSteadyCooldown.ts';

/**
 * Interleaved 1F1B (Megatron-LM, Narayanan et al. SC'21; torch ScheduleInterleaved1F1B): rank r
 * holds stages r, r+p, …, r+(v−1)p. The batch is cut into ⌊m/p⌋ rounds (at least one) of
 * n = m / rounds microbatches, which must divide evenly, so m need not be a multiple of p.
 * Forwards visit the rank's chunks round-robin in groups of n microbatches, backwards visit them
 * in reverse chunk order. Rank r warms up with (v−1)·n + 2·(p−1−r) forwards, at most m·v: enough
 * for the first backward of its last chunk to come back while the earlier chunks' forwards keep
 * it busy. With one chunk that is still 2·(p−1−r), twice plain 1F1B's, as in torch. Bubble
 * (p−1)(F+B)/v when m is a multiple of p.
 */
export const interleaved1F1B = rankwiseBuilder({
  name: 'interleaved-1f1b',
  summary: 'Interleaved 1F1B: v chunks per rank in a loop; bubble shrinks by v',
  defaultChunks: 2,
  problems(input) {
    const rounds = roundsOf(input);
    if (input.microbatches % rounds === 0) return [];
    return [
      {
        field: 'microbatches',
        message: `interleaved-1f1b cuts ${input.microbatches} microbatches into ⌊m/ranks⌋ = ${rounds} rounds, so needs a multiple of ${rounds} (as torch's ScheduleInterleaved1F1B), got ${input.microbatches}`,
      },
    ];
  },
  placement: (input) => loopPlacement(input.ranks, input.chunks),
  program: (input, rank) => interleavedRank(input, rank),
});

/** torch's `number_of_rounds`: one round when m < p. */
function roundsOf({ ranks, microbatches }: BuilderInput): number {
  return Math.max(1, Math.floor(microbatches / ranks));
}

function interleavedRank(input: BuilderInput, rank: number) {
  const { ranks, microbatches, chunks } = input;
  const round = microbatches / roundsOf(input);
  const forwards = microbatches * chunks;
  const warmup = Math.min((chunks - 1) * round + 2 * (ranks - 1 - rank), forwards);
  return warmupSteadyCooldown({ rank, ranks, chunks, round, forwards, warmup });
}
