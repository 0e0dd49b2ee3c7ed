/**
 * Incremental compilation: after an edit of the directive program, rerun only the passes from the
 * first one whose inputs changed, starting from the DAG the previous compile fed that pass. It
 * takes the pipeline `compile` takes, and keeps what each pass found before it ran.
 *
 * This is sound because passes never mutate their input (ir/dag.ts: a pass returns a new `Dag`
 * sharing what it did not change, and the context fields it sets are fresh objects), so the DAG a
 * pass started from stays valid after later passes ran. What each pass reads besides its input
 * DAG it declares itself (`Pass.reads`).
 */
import { type ArraySource, CompileError, type Dag, type Design, lend, now } from '@stagecraft/ir';
import type {
  CompileOptions,
  CompileResult,
  ExpandedDirective,
  PassSnapshot,
} from '../driver/compileTypes.ts';
import type { Pass, PassContext } from '../driver/pass.ts';
import {
  compiledResult,
  DEFAULT_MAX_OPS,
  expandAndBuild,
  PASSES,
  type PassStep,
  runPipeline,
} from './pipeline.ts';

/** What the last compile of a design leaves for the next one. Treat as opaque. */
export interface IncrementalState {
  /** Model, cluster and op limit, canonically: a different key compiles from scratch. */
  readonly key: string;
  readonly name: string;
  /** The `expand-schedule` and `build-dag` snapshots (with the built DAG). */
  readonly head: readonly PassSnapshot[];
  /** For each pass that ran, in order: its input DAG and context, what it read, and its snapshot. */
  readonly steps: readonly PassStep[];
  /** The result when every pass ran and succeeded. */
  readonly result?: Extract<CompileResult, { ok: true }>;
}

export interface IncrementalResult {
  result: CompileResult;
  state: IncrementalState;
  /** Name of the first pass that ran again (undefined when the previous result was reused whole). */
  rerunFrom?: string;
  /** Passes whose previous output was reused. */
  reused: number;
}

function stateKey(design: Design, maxOps: number): string {
  return JSON.stringify([design.model, design.cluster, maxOps]);
}

/** What `pass` reads of `program` and the design (`Pass.reads`), canonically. */
function signature(pass: Pass, program: readonly ExpandedDirective[], name: string): string {
  const parts: unknown[] = [];
  for (let i = 0; i < program.length; i++) {
    const e = program[i]!;
    if (pass.reads.includes(e.directive.op)) parts.push([i, e.path, e.directive]);
  }
  if (pass.reads.includes('name')) parts.push(name);
  return JSON.stringify(parts);
}

/** `compile`'s answer with the internal snapshots trimmed to what the caller asked for. */
function shaped(snapshots: readonly PassSnapshot[], keep: boolean): PassSnapshot[] {
  return snapshots.map((s) => (keep || s.dag === undefined ? s : { pass: s.pass, ms: s.ms }));
}

/**
 * Compiles `design` as `compile` does, reusing the work of `previous` (the state of the last
 * compile of an earlier version of the same design) where the inputs of a pass are unchanged.
 * The result is always equal to `compile(design, options)`.
 */
export function compileIncremental(
  design: Design,
  previous: IncrementalState | undefined,
  options: CompileOptions = {},
): IncrementalResult {
  const t0 = now();
  const maxOps = options.maxOps ?? DEFAULT_MAX_OPS;
  const keep = options.keepSnapshots ?? true;
  // Arrays passes use while they run are lent for this compile (pass.ts `scratch`).
  const loan = lend();
  try {
    return compileFrom(design, previous, loan, { t0, maxOps, keep });
  } finally {
    loan.close();
  }
}

function compileFrom(
  design: Design,
  previous: IncrementalState | undefined,
  scratch: ArraySource,
  { t0, maxOps, keep }: { t0: number; maxOps: number; keep: boolean },
): IncrementalResult {
  const key = stateKey(design, maxOps);
  // Snapshots are always kept inside: they are the inputs of the next compile's passes.
  const ctx: PassContext = { design, options: { maxOps, keepSnapshots: true }, scratch, program: [] };
  const prev = previous?.key === key && previous.head.length === 2 ? previous : undefined;

  const head: PassSnapshot[] = [];
  let dag: Dag;
  try {
    dag = expandAndBuild(ctx, head, prev?.head[1]);
  } catch (e) {
    if (!(e instanceof CompileError)) throw e;
    // The previous state still describes the passes' inputs of its own program: keep it.
    return {
      result: { ok: false, errors: e.issues, snapshots: head },
      state: previous ?? empty(key),
      reused: 0,
    };
  }

  const signatures = PASSES.map((p) => signature(p, ctx.program, design.name));
  let from = 0;
  if (prev) {
    while (
      from < PASSES.length &&
      from < prev.steps.length &&
      prev.steps[from]!.signature === signatures[from]
    )
      from++;
  }
  if (prev?.result && from === PASSES.length) {
    const result = {
      ...prev.result,
      program: ctx.program,
      snapshots: [head[0]!, ...prev.result.snapshots.slice(1)],
    };
    const state: IncrementalState = { key, name: design.name, head, steps: prev.steps, result };
    return {
      result: { ...result, snapshots: shaped(result.snapshots, keep), compileMs: now() - t0 },
      state,
      reused: from,
    };
  }
  // A failed compile kept the inputs of every pass up to the one that failed, not beyond it.
  if (prev && from === prev.steps.length && from > 0 && !prev.result) from--;
  const steps = prev ? prev.steps.slice(0, from) : [];
  if (from > 0) {
    const resume = prev!.steps[from]!;
    dag = resume.input;
    Object.assign(ctx, resume.ctx);
  }

  const snapshots = [...head, ...steps.map((s) => s.snapshot)];
  const run = runPipeline(dag, ctx, from, snapshots, { steps, signatures });
  if (!run.ok) {
    return {
      result: { ok: false, errors: run.errors, snapshots: shaped(snapshots, keep) },
      state: { key, name: design.name, head, steps },
      rerunFrom: PASSES[from]!.name,
      reused: from,
    };
  }
  const result = compiledResult(ctx, run.dag, snapshots, t0);
  const state: IncrementalState = { key, name: design.name, head, steps, result };
  return {
    result: { ...result, snapshots: shaped(snapshots, keep) },
    state,
    ...(from < PASSES.length ? { rerunFrom: PASSES[from]!.name } : {}),
    reused: from,
  };
}

function empty(key: string): IncrementalState {
  return { key, name: '', head: [], steps: [] };
}
