import {
  type BuilderInput,
  type BuilderProblem,
  microbatchesPerDirection,
  type ScheduleBuilder,
} from './builder.ts';
import { type ChunkId, dualPipeSteps } from './dualPipeSteps.ts';
import { dualPipePlacement } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * DualPipe (DeepSeek-V3, bidirectional): two copies of the model cut into p stages each. The
 * down pipeline (dir 0) runs stage s on rank s, the up pipeline (dir 1) stage s on rank p−1−s,
 * and each gets half of the microbatches. Seen from rank r, its two stages are two chunks of a V
 * of p/2 ranks: the stage it runs at depth h = min(r, p−1−r) of one direction is chunk 0 and its
 * stage at depth p−1−h of the other direction is chunk 1, so DualPipe's eight steps apply with
 * h and p/2 in place of r and N. Parameters are held twice; `chunks` is 1 because the model is
 * cut in p stages, the second copy being a replica rather than a chunk.
 */
export const dualPipe: ScheduleBuilder = {
  name: 'dualpipe',
  summary: 'DualPipe: two model copies in opposite directions, overlapped F&B; 2× parameters',
  directions: 2,
  defaultChunks: 1,
  fixedChunks: 1,
  check(input) {
    const problems = commonProblems(dualPipe, input);
    if (problems.length === 0) problems.push(...shapeProblems(input));
    return problems;
  },
  build(input) {
    assertBuildable(dualPipe, input);
    const { ranks, microbatches } = input;
    const vRanks = ranks / 2;
    const programs = Array.from({ length: ranks }, (_, rank) => {
      const down: ChunkId = { stage: rank, dir: 0 };
      const up: ChunkId = { stage: ranks - 1 - rank, dir: 1 };
      // The first half of the ranks meets the down pipeline first, the second half the up one.
      const firstHalf = rank < vRanks;
      return dualPipeSteps({
        vRanks,
        h: Math.min(rank, ranks - 1 - rank),
        microbatches: microbatchesPerDirection(dualPipe, microbatches),
        chunk0: firstHalf ? down : up,
        chunk1: firstHalf ? up : down,
      });
    });
    return { placement: dualPipePlacement(ranks), programs };
  },
};

function shapeProblems({ ranks, microbatches }: BuilderInput): BuilderProblem[] {
  const problems: BuilderProblem[] = [];
  if (ranks % 2 !== 0) {
    problems.push({ field: 'ranks', message: `dualpipe needs an even number of ranks, got ${ranks}` });
  }
  if (microbatches % 2 !== 0) {
    problems.push({
      field: 'microbatches',
      message: `dualpipe splits microbatches evenly between its two directions, so needs an even number, got ${microbatches}`,
    });
  } else if (microbatches < 2 * ranks) {
    problems.push({
      field: 'microbatches',
      message: `dualpipe needs at least 2×ranks = ${2 * ranks} microbatches (both directions), got ${microbatches}`,
    });
  }
  return problems;
}
