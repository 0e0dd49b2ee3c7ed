/**
 * Schedule builders: each named schedule is a placement of virtual stages on ranks plus a
 * per-rank program of slots. `toDirectives` turns that into the editable `split` + `place` +
 * `order` program the `schedule` macro expands into, so every builder shares one lowering.
 */
import type { Directive, Filter, ScheduleBuilderName } from '@stagecraft/ir';

export type ActionPass = 'F' | 'B' | 'BI' | 'BW';

/** One op of a rank's program: a pass of one virtual stage for one microbatch. */
export interface Action {
  /** Virtual stage index, 0 .. ranks·chunks−1 (for dualpipe, 0 .. stages−1 of one direction). */
  readonly stage: number;
  readonly mb: number;
  readonly pass: ActionPass;
  /** DualPipe only: 0 for the down pipeline (stage s on rank s), 1 for the up pipeline. */
  readonly dir?: 0 | 1;
}

/** A slot runs its actions as one unit; two independent actions in one slot overlap (F&B). */
export type Slot = readonly Action[];

export interface BuilderInput {
  readonly builder: ScheduleBuilderName;
  /** Pipeline ranks p. */
  readonly ranks: number;
  /** Microbatches m (for dualpipe: both directions together). */
  readonly microbatches: number;
  /** Chunks v per rank (resolved: the builder's default when the directive gave none). */
  readonly chunks: number;
  /** Number of virtual stages the builder schedules: ranks·chunks. */
  readonly virtualStages: number;
}

export interface BuiltSchedule {
  /** Rank that runs each virtual stage (per direction for dualpipe: [down, up]). */
  readonly placement:
    | readonly number[]
    | { readonly down: readonly number[]; readonly up: readonly number[] };
  /** Per rank, its slots in execution order. */
  readonly programs: readonly (readonly Slot[])[];
}

/** A reason the parameters do not fit the builder, naming the `schedule` field at fault. */
export interface BuilderProblem {
  readonly field: 'ranks' | 'microbatches' | 'chunks' | 'groups';
  readonly message: string;
}

export interface ScheduleBuilder {
  readonly name: ScheduleBuilderName;
  /** One line for the palette and `--help`. */
  readonly summary: string;
  /**
   * Pipelines the schedule runs the model in, in opposite directions: 2 for DualPipe (two copies
   * of the model, DeepSeek-V3 §3.2.1), which splits the schedule's microbatches evenly between
   * them (BuilderInput.microbatches counts both); 1 for every other builder.
   */
  readonly directions: 1 | 2;
  readonly defaultChunks: number;
  /** Chunks the builder accepts; undefined means any positive number. */
  readonly fixedChunks?: number;
  /** Checks p, m, v; the empty list means the builder can build. */
  check(input: BuilderInput): BuilderProblem[];
  build(input: BuilderInput): BuiltSchedule;
  /**
   * The schedule rank by rank, for builders that can: its placement, and one rank's program
   * built alone (what `build` lists for that rank). A schedule of hundreds of thousands of
   * actions is then lowered one rank at a time, with one rank's actions in memory, not all.
   */
  readonly byRank?: {
    placement(input: BuilderInput): BuiltSchedule['placement'];
    program(input: BuilderInput, rank: number): readonly Slot[];
  };
}

/** Microbatches each pipeline direction runs of a schedule's `microbatches`. */
export function microbatchesPerDirection(builder: ScheduleBuilder, microbatches: number): number {
  return microbatches / builder.directions;
}

/** The schedule's microbatches when each of its directions runs `perDirection`. */
export function scheduleMicrobatches(builder: ScheduleBuilder, perDirection: number): number {
  return perDirection * builder.directions;
}

export type { Directive, Filter };
