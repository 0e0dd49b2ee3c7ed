import type { BuilderInput, ScheduleBuilder } from './builder.ts';
import { oneFOneB } from './oneFOneB.ts';
import { loopPlacement } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';
import { warmupSteadyCooldown } from './warmupSteadyCooldown.ts';

/**
 * Interleaved 1F1B (Megatron-LM, Narayanan et al. SC'21; torch ScheduleInterleaved1F1B): rank r
 * holds stages r, r+p, …, r+(v−1)p. Forwards visit the rank's chunks round-robin in groups of p
 * microbatches, backwards visit them in reverse chunk order. Rank r warms up with
 * (p−r−1)·2 + (v−1)·p forwards: enough for the first backward of its last chunk to come back
 * while the earlier chunks' forwards keep it busy. Bubble (p−1)(F+B)/v.
 */
export const interleaved1F1B: ScheduleBuilder = {
  name: 'interleaved-1f1b',
  summary: 'Interleaved 1F1B: v chunks per rank in a loop; bubble shrinks by v',
  defaultChunks: 2,
  check(input) {
    const problems = commonProblems(interleaved1F1B, input);
    if (problems.length === 0 && input.microbatches % input.ranks !== 0) {
      // The classic form's groups of p microbatches must tile the batch (torch relaxes this to
      // rounds of m // p; we keep the form whose bubble the closed form describes).
      problems.push({
        field: 'microbatches',
        message: `interleaved-1f1b needs microbatches to be a multiple of ranks (${input.ranks}), got ${input.microbatches}`,
      });
    }
    return problems;
  },
  build(input) {
    assertBuildable(interleaved1F1B, input);
    const { placement, program } = interleaved1F1B.byRank!;
    return {
      placement: placement(input),
      programs: Array.from({ length: input.ranks }, (_, r) => program(input, r)),
    };
  },
  byRank: {
    placement: (input) => loopPlacement(input.ranks, input.chunks),
    // One chunk is plain 1F1B: Megatron also switches to the non-interleaved schedule then.
    program: (input, rank) =>
      input.chunks === 1 ? oneFOneB.byRank!.program(input, rank) : interleavedRank(input, rank),
  },
};

function interleavedRank({ ranks, microbatches, chunks }: BuilderInput, rank: number) {
  const forwards = microbatches * chunks;
  const warmup = Math.min((ranks - rank - 1) * 2 + (chunks - 1) * ranks, forwards);
  return warmupSteadyCooldown({ rank, ranks, chunks, forwards, warmup });
}
