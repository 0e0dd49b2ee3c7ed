/**
 * The streams of a compiled plan whose instructions are made when first read. Lowering
 * (passes/lower/planInstructions.ts) gives each stream where its instructions come from; reading
 * or replacing them tells the plan's compiled layout (compiledLayout.ts), which then no longer
 * speaks for the plan. The plan contract needs only this much of a lowering: what makes the
 * instructions is the compiler's.
 */
import type { CompiledLayout } from './compiledLayout.ts';
import type { Instruction, StreamPlan } from './plan.ts';

/** What makes a lowered stream's instructions: global stream `stream` as the device of `rank` runs it. */
export interface StreamInstructions {
  stream(stream: number, rank: number): Instruction[];
}

/**
 * Where a lowered stream's instructions come from: global stream `stream` of the group's first
 * lowering, as the device of `rank` runs it. A stream holds it (in its non-enumerable `lowered`
 * field) until its instructions are first read or replaced, and then tells `compiled`.
 */
export interface LoweredStream {
  readonly program: StreamInstructions;
  readonly stream: number;
  readonly rank: number;
  readonly compiled: CompiledLayout;
}

type LazyStream = StreamPlan & { lowered: LoweredStream | undefined };

/** What a compiled plan's stream is made from while its instructions were never read (nor replaced). */
export function loweredStreamOf(sp: StreamPlan): LoweredStream | undefined {
  return (sp as Partial<LazyStream>).lowered;
}

/** True for a compiled plan's stream whose instructions were never read (nor replaced). */
export function isUnread(sp: StreamPlan): boolean {
  return loweredStreamOf(sp) !== undefined;
}

/**
 * A stream plan whose `instructions` are made from `lowered` when first read; writing them
 * replaces them as for any plan. Fields keep the order of an eagerly built one (stream,
 * instructions, priority, smFraction), so both serialise to the same text. The accessor is one
 * pair of functions shared by all streams, added to a fresh object, so every stream plan keeps one
 * fast hidden class (JSON and the readers of a plan walk thousands of them).
 */
export function lazyStream(
  stream: string,
  lowered: LoweredStream,
  spec: { priority?: number | undefined; smFraction?: number | undefined } | undefined,
): StreamPlan {
  const sp = { stream } as LazyStream;
  Object.defineProperty(sp, 'instructions', {
    get: instructionsOfStream,
    set: replaceInstructions,
    enumerable: true,
    configurable: true,
  });
  if (spec?.priority !== undefined) sp.priority = spec.priority;
  if (spec?.smFraction !== undefined) sp.smFraction = spec.smFraction;
  Object.defineProperty(sp, 'lowered', { value: lowered, writable: true });
  return sp;
}

function instructionsOfStream(this: LazyStream): Instruction[] {
  const { program, stream, rank } = this.lowered!;
  const list = program.stream(stream, rank);
  settle(this, list);
  return list;
}

function replaceInstructions(this: LazyStream, list: Instruction[]): void {
  settle(this, list);
}

function settle(sp: LazyStream, list: Instruction[]): void {
  sp.lowered?.compiled.streamRead();
  sp.lowered = undefined;
  Object.defineProperty(sp, 'instructions', {
    value: list,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
