import type { ScheduleBuilder } from './builder.ts';
import { controllableMemoryV } from './controllableMemoryV.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/** Activations V-Half keeps, in full-stage microbatches: about half of 1F1B's p. */
export const vHalfActivations = (ranks: number) => Math.floor((ranks + 2) / 2);

/** V-Half: a V schedule holding (p+2)//2 microbatches of activations (half of 1F1B's). */
export const vHalf: ScheduleBuilder = {
  name: 'v-half',
  summary: 'V-Half: V placement, half of 1F1B activation memory ((p+2)//2 microbatches)',
  directions: 1,
  defaultChunks: 2,
  fixedChunks: 2,
  check(input) {
    return commonProblems(vHalf, input);
  },
  build(input) {
    assertBuildable(vHalf, input);
    return controllableMemoryV(input, vHalfActivations(input.ranks));
  },
};
