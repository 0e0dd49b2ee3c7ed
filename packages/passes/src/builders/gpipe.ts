import { action, solo } from './action.ts';
import type { ScheduleBuilder, Slot } from './builder.ts';
import { linearPlacement } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * GPipe: every rank runs all forwards in microbatch order, then all backwards in microbatch
 * order (torch's ScheduleGPipe). Backward order does not change the flush: the last rank's B0
 * only needs its own F0, so the backwards stream back-to-back either way and the step takes
 * (m+p−1)(F+B); rank 0 holds all m activations before its first backward.
 */
export const gpipe: ScheduleBuilder = {
  name: 'gpipe',
  summary: 'GPipe: all forwards, then all backwards (flush); m activations stashed',
  directions: 1,
  defaultChunks: 1,
  fixedChunks: 1,
  check(input) {
    return commonProblems(gpipe, input);
  },
  build(input) {
    assertBuildable(gpipe, input);
    const { ranks, microbatches } = input;
    const programs = linearPlacement(ranks).map((stage) => {
      const program: Slot[] = [];
      for (let mb = 0; mb < microbatches; mb++) program.push(solo(action('F', stage, mb)));
      for (let mb = 0; mb < microbatches; mb++) program.push(solo(action('B', stage, mb)));
      return program;
    });
    return { placement: linearPlacement(ranks), programs };
  },
};
