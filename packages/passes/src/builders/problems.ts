/** The checks every builder shares, worded so a user can fix the `schedule` directive from them. */
import type { BuilderInput, BuilderProblem, ScheduleBuilder } from './builder.ts';

/** Ranks and microbatches are positive integers; chunks equal the builder's fixed count, if it has one. */
export function commonProblems(
  builder: Pick<ScheduleBuilder, 'name' | 'fixedChunks'>,
  input: BuilderInput,
): BuilderProblem[] {
  const problems: BuilderProblem[] = [];
  if (!Number.isInteger(input.ranks) || input.ranks < 1) {
    problems.push({ field: 'ranks', message: `${builder.name} needs at least 1 rank, got ${input.ranks}` });
  }
  if (!Number.isInteger(input.microbatches) || input.microbatches < 1) {
    problems.push({
      field: 'microbatches',
      message: `${builder.name} needs at least 1 microbatch, got ${input.microbatches}`,
    });
  }
  if (builder.fixedChunks !== undefined && input.chunks !== builder.fixedChunks) {
    problems.push({
      field: 'chunks',
      message: `${builder.name} runs exactly ${builder.fixedChunks} chunk${builder.fixedChunks === 1 ? '' : 's'} per rank, got ${input.chunks}`,
    });
  } else if (!Number.isInteger(input.chunks) || input.chunks < 1) {
    problems.push({
      field: 'chunks',
      message: `${builder.name} needs at least 1 chunk per rank, got ${input.chunks}`,
    });
  }
  return problems;
}

/**
 * `build` is only called after `check` passed; a caller that skips the check gets the same
 * problems as an exception instead of a malformed schedule.
 */
export function assertBuildable(builder: ScheduleBuilder, input: BuilderInput): void {
  const problems = builder.check(input);
  if (problems.length > 0) {
    throw new Error(
      `cannot build ${builder.name}: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
    );
  }
}
