import {
  type BuilderInput,
  microbatchesPerDirection,
  type ScheduleBuilder,
} from '../../src/builders/builder.ts';
import { getBuilder } from '../../src/builders/index.ts';

/** The input the `schedule` macro would hand a builder; chunks default to the builder's own. */
export function inputFor(
  builder: ScheduleBuilder,
  ranks: number,
  microbatches: number,
  chunks = builder.defaultChunks,
): BuilderInput {
  return { builder: builder.name, ranks, microbatches, chunks, virtualStages: ranks * chunks };
}

/** Microbatches each stage sees: dualpipe splits them between its two directions. */
export function microbatchesPerStage(input: BuilderInput): number {
  return microbatchesPerDirection(getBuilder(input.builder), input.microbatches);
}
