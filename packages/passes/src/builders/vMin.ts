import type { ScheduleBuilder } from './builder.ts';
import { controllableMemoryV } from './controllableMemoryV.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/** Activations V-Min keeps, in full-stage microbatches: about a third of 1F1B's p. */
export const vMinActivations = (ranks: number) => Math.floor((ranks + 4) / 3);

/** V-Min: a V schedule holding (p+4)//3 microbatches of activations (a third of 1F1B's). */
export const vMin: ScheduleBuilder = {
  name: 'v-min',
  summary: 'V-Min: V placement, a third of 1F1B activation memory ((p+4)//3 microbatches)',
  directions: 1,
  defaultChunks: 2,
  fixedChunks: 2,
  check(input) {
    return commonProblems(vMin, input);
  },
  build(input) {
    assertBuildable(vMin, input);
    return controllableMemoryV(input, vMinActivations(input.ranks));
  },
};
