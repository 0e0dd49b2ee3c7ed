import { action, solo } from './action.ts';
import type { ScheduleBuilder, Slot } from './builder.ts';
import { loopPlacement } from './placement.ts';
import { assertBuildable, commonProblems } from './problems.ts';

/**
 * Looped BFS (Lamy-Poirier, "Breadth-First Pipeline Parallelism"; torch ScheduleLoopedBFS): loop
 * placement, and each rank finishes every microbatch's forward of one chunk before the next
 * chunk, then runs the backwards chunk by chunk in reverse, each chunk's microbatches newest
 * first as torch does. It trades GPipe-like memory (all m·v chunk activations) for few chunk
 * switches, which suits sharded data parallel that regathers parameters per chunk.
 */
export const loopedBfs: ScheduleBuilder = {
  name: 'looped-bfs',
  summary: 'Looped BFS: loop placement, breadth-first over chunks (GPipe per chunk)',
  directions: 1,
  defaultChunks: 2,
  check(input) {
    return commonProblems(loopedBfs, input);
  },
  build(input) {
    assertBuildable(loopedBfs, input);
    const { ranks, microbatches, chunks } = input;
    const programs = Array.from({ length: ranks }, (_, rank) => {
      const stages = Array.from({ length: chunks }, (_, chunk) => chunk * ranks + rank);
      const program: Slot[] = [];
      for (const stage of stages) {
        for (let mb = 0; mb < microbatches; mb++) program.push(solo(action('F', stage, mb)));
      }
      for (const stage of stages.toReversed()) {
        for (let mb = microbatches - 1; mb >= 0; mb--) program.push(solo(action('B', stage, mb)));
      }
      return program;
    });
    return { placement: loopPlacement(ranks, chunks), programs };
  },
};
