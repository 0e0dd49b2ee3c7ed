/**
 * A builder whose ranks can each be built alone: its `check` is the shared checks plus its own,
 * its `build` every rank's program in turn, so a rank-wise schedule states only its placement and
 * one rank's program (and the byRank lowering and `build` cannot disagree). The rank-wise builders
 * all run one pipeline direction (DualPipe, which runs two, builds its ranks together).
 */
import type { BuilderInput, BuilderProblem, BuiltSchedule, ScheduleBuilder, Slot } from './builder.ts';
import { assertBuildable, commonProblems } from './problems.ts';

export interface RankwiseSpec
  extends Pick<ScheduleBuilder, 'name' | 'summary' | 'defaultChunks' | 'fixedChunks'> {
  /** Checks of its own, run when the shared ones pass. */
  problems?(input: BuilderInput): BuilderProblem[];
  placement(input: BuilderInput): BuiltSchedule['placement'];
  program(input: BuilderInput, rank: number): readonly Slot[];
}

export function rankwiseBuilder(spec: RankwiseSpec): ScheduleBuilder {
  const { problems, placement, program, ...about } = spec;
  const builder: ScheduleBuilder = {
    ...about,
    directions: 1,
    check(input) {
      const found = commonProblems(builder, input);
      if (found.length === 0 && problems) found.push(...problems(input));
      return found;
    },
    build(input) {
      assertBuildable(builder, input);
      return {
        placement: placement(input),
        programs: Array.from({ length: input.ranks }, (_, r) => program(input, r)),
      };
    },
    byRank: { placement, program },
  };
  return builder;
}
