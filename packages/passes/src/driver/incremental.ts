/**
 * Incremental compilation: after an edit of the directive program, rerun only the passes from the
 * first one whose inputs changed, starting from the DAG the previous compile fed that pass.
 *
 * This is sound because passes never mutate their input (ir/dag.ts: a pass returns a new `Dag`
 * sharing what it did not change, and the context fields it sets are fresh objects), so the DAG a
 * pass started from stays valid after later passes ran. What each pass reads besides its input
 * DAG is listed in `PASS_INPUTS`; a pass missing from it is assumed to read everything, so a pass
 * added later is always rerun until it is listed.
 */
import {
  type ArraySource,
  CompileError,
  type Dag,
  type Design,
  type DirectiveOp,
  lend,
  now,
  planOpCount,
} from '@stagecraft/ir';
import { lowerModel, stageValues } from '../model/lowerModel.ts';
import { buildDag } from '../passes/buildDag.ts';
import { expandProgram } from '../passes/expandSchedule.ts';
import { DEFAULT_MAX_OPS, PASSES } from './compile.ts';
import type { CompileOptions, CompileResult, ExpandedDirective, PassSnapshot } from './compileTypes.ts';
import { type PassContext, runPasses } from './pass.ts';

interface PassInputs {
  /** Directive kinds of the expanded program the pass reads (with their index and path). */
  ops: readonly DirectiveOp[];
  /** The pass reads the design's name. */
  name?: boolean;
}

/** Model, cluster and options are compared as a whole: any change there compiles from scratch. */
const PASS_INPUTS: Readonly<Record<string, PassInputs>> = {
  // Reads only the model and cluster, which are part of the state's key.
  'check-supported': { ops: [] },
  split: { ops: ['split'] },
  // Piper's rule: an order naming BI or BW splits that backward.
  'split-backward': { ops: ['split_backward', 'order'] },
  place: { ops: ['place'] },
  'insert-send-recv': { ops: [] },
  streams: { ops: ['stream'] },
  'insert-optimizer-step': { ops: [] },
  // Replicate also reads the shard directives: expert blocks are left out of data parallelism.
  replicate: { ops: ['replicate', 'shard'] },
  shard: { ops: ['shard'] },
  'shard-tensor': { ops: ['shard_tensor'] },
  recompute: { ops: ['recompute'] },
  offload: { ops: ['offload'] },
  // A B the order names runs as BI then BW where a split_backward split it (splitHalves.ts).
  order: { ops: ['order', 'split_backward'] },
  partition: { ops: [] },
  'stream-order': { ops: [] },
  'lower-plan': { ops: [], name: true },
  'validate-plan': { ops: [] },
};

/** What passes leave in the context for later passes (partition, stream order, plan, …). */
type ContextState = Omit<PassContext, 'design' | 'options' | 'program'>;

function contextState(ctx: PassContext): ContextState {
  const { design: _d, options: _o, program: _p, ...state } = ctx;
  return state;
}

/** What the last compile of a design leaves for the next one. Treat as opaque. */
export interface IncrementalState {
  /** Model, cluster and op limit, canonically: a different key compiles from scratch. */
  readonly key: string;
  readonly name: string;
  /** The `expand-schedule` and `build-dag` snapshots (with the built DAG). */
  readonly head: readonly PassSnapshot[];
  /** For each pass that ran, in order: its input DAG and context, what it read, and its snapshot. */
  readonly steps: readonly {
    input: Dag;
    ctx: ContextState;
    signature: string;
    snapshot: PassSnapshot;
  }[];
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

function signature(pass: string, program: readonly ExpandedDirective[], name: string): string {
  const inputs = PASS_INPUTS[pass];
  if (!inputs) return JSON.stringify([name, program]);
  const reads = (op: DirectiveOp) => inputs.ops.includes(op);
  const parts: unknown[] = [];
  program.forEach((e, i) => {
    if (reads(e.directive.op)) parts.push([i, e.path, e.directive]);
  });
  if (inputs.name) parts.push(name);
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

  let head: PassSnapshot[];
  let dag: Dag;
  try {
    const t = now();
    const blocks = prev ? prev.head[1]!.dag!.blocks : lowerModel(design.model);
    ctx.program = expandProgram(ctx, stageValues(blocks), blocks.length);
    const expand: PassSnapshot = { pass: 'expand-schedule', ms: now() - t };
    if (prev) {
      head = [expand, prev.head[1]!];
    } else {
      const tb = now();
      const built = buildDag(blocks);
      head = [expand, { pass: 'build-dag', ms: now() - tb, dag: built }];
    }
    dag = head[1]!.dag!;
  } catch (e) {
    if (!(e instanceof CompileError)) throw e;
    // As `compile`: no snapshot when the program does not expand. The previous state still
    // describes the passes' inputs of its own program: keep it.
    return {
      result: { ok: false, errors: e.issues, snapshots: [] },
      state: previous ?? empty(key),
      reused: 0,
    };
  }

  const signatures = PASSES.map((p) => signature(p.name, ctx.program, design.name));
  let from = 0;
  if (prev) {
    while (
      from < PASSES.length &&
      from < prev.steps.length &&
      prev.steps[from]!.signature === signatures[from]
    )
      from++;
  }
  const steps = prev ? prev.steps.slice(0, from) : [];
  if (prev?.result && from === PASSES.length) {
    const result = {
      ...prev.result,
      program: ctx.program,
      snapshots: [head[0]!, ...prev.result.snapshots.slice(1)],
    };
    const state: IncrementalState = { key, name: design.name, head, steps, result };
    return {
      result: { ...result, snapshots: shaped(result.snapshots, keep), compileMs: now() - t0 },
      state,
      reused: from,
    };
  }
  // A failed compile kept the inputs of every pass up to the one that failed, not beyond it.
  if (prev && from === prev.steps.length && from > 0 && !prev.result) from--;
  steps.length = from;
  if (from > 0) {
    const resume = prev!.steps[from]!;
    dag = resume.input;
    Object.assign(ctx, resume.ctx);
  }

  for (let i = from; i < PASSES.length; i++) {
    const pass = PASSES[i]!;
    const input = dag;
    const before = contextState(ctx);
    const run = runPasses([pass], input, ctx);
    const snapshot = run.snapshots[0]!;
    steps.push({ input, ctx: before, signature: signatures[i]!, snapshot });
    if (!run.ok) {
      const snapshots = [...head, ...steps.map((s) => s.snapshot)];
      const state: IncrementalState = { key, name: design.name, head, steps };
      return {
        result: { ok: false, errors: run.errors, snapshots: shaped(snapshots, keep) },
        state,
        rerunFrom: PASSES[from]!.name,
        reused: from,
      };
    }
    dag = run.dag;
  }
  const plan = ctx.plan!;
  const snapshots = [...head, ...steps.map((s) => s.snapshot)];
  const result: Extract<CompileResult, { ok: true }> = {
    ok: true,
    plan,
    dag,
    program: ctx.program,
    snapshots,
    ops: ctx.planOps ?? planOpCount(plan),
    compileMs: now() - t0,
  };
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
