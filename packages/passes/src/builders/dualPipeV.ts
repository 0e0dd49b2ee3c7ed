import type { BuilderInput, BuilderProblem, ScheduleBuilder } from './builder.ts';
import { dualPipeSteps } from './dualPipeSteps.ts';
import { vPlacement, vStagesOfRank } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * DualPipeV (DeepSeek's DualPipe folded into a V; torch ScheduleDualPipeV): one model copy cut
 * into 2N stages on N ranks with V placement, scheduled by DualPipe's eight steps with h = r.
 * Bubble (N−1)(F&B + B − 3W) per rank span (see the tests for what exactly is measured).
 */
export const dualPipeV: ScheduleBuilder = {
  name: 'dualpipev',
  summary: 'DualPipeV: DualPipe in a V on half the devices; overlapped F&B, one model copy',
  directions: 1,
  defaultChunks: 2,
  fixedChunks: 2,
  check(input) {
    const problems = commonProblems(dualPipeV, input);
    if (problems.length === 0) problems.push(...fillProblems(input));
    return problems;
  },
  build(input) {
    assertBuildable(dualPipeV, input);
    const { ranks, microbatches } = input;
    const programs = Array.from({ length: ranks }, (_, rank) => {
      const { chunk0, chunk1 } = vStagesOfRank(ranks, rank);
      return dualPipeSteps({
        vRanks: ranks,
        h: rank,
        microbatches,
        chunk0: { stage: chunk0 },
        chunk1: { stage: chunk1 },
      });
    });
    return { placement: vPlacement(ranks), programs };
  },
};

/** The main step needs a chunk-0 forward of its own on every rank. */
function fillProblems({ ranks, microbatches }: BuilderInput): BuilderProblem[] {
  if (microbatches >= 2 * ranks) return [];
  return [
    {
      field: 'microbatches',
      message: `dualpipev needs at least 2×ranks = ${2 * ranks} microbatches, got ${microbatches}`,
    },
  ];
}
