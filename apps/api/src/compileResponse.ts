/**
 * One compile request, start to finish, as a worker runs it: compile (incrementally when the
 * design was compiled before), simulate, and the response body of `POST /api/compile` as UTF-8
 * JSON bytes: the worker transfers them to the main thread (no copy, no structured clone of a
 * megabyte string) and the main thread writes them to the socket as they are (no encoding, no
 * re-serialisation). Pure: no I/O, no threads.
 */
import { type Dag, type Design, type Issue, nodeCount } from '@stagecraft/ir';
import type { CompileResult, IncrementalState, NodeDiff, PassSnapshot } from '@stagecraft/passes';
import { metricsReport, type SteadyState } from '@stagecraft/sim';
import { runDesign, simulateRun, steadyRun } from '@stagecraft/workflow';
import { nonFinitePath } from './designMagnitude.ts';
import { underPath } from './errors.ts';
import { type NodeTexts, wireDagJson } from './wireDag.ts';

export interface CompileInclude {
  snapshots: 'none' | 'summary' | 'full';
  timeline: boolean;
  plan: boolean;
  dag: boolean;
  /** Also simulate this many steps in a row: `metrics.steadyState` (docs/cost-model.md). */
  steps?: number;
}

export const DEFAULT_INCLUDE: CompileInclude = {
  snapshots: 'summary',
  timeline: true,
  plan: true,
  dag: true,
};

/** The answer of a design over `detailOps` when `include` does not ask for more: metrics and program. */
export const BRIEF_INCLUDE: CompileInclude = {
  snapshots: 'none',
  timeline: false,
  plan: false,
  dag: false,
};

/** The parts `BRIEF_INCLUDE` left out of an answer that the caller did not choose themselves. */
export function omittedParts(include: CompileInclude, asked: Partial<CompileInclude>): string[] {
  const out: string[] = [];
  if (asked.snapshots === undefined && include.snapshots !== DEFAULT_INCLUDE.snapshots) out.push('snapshots');
  for (const k of ['timeline', 'plan', 'dag'] as const) {
    if (asked[k] === undefined && include[k] !== DEFAULT_INCLUDE[k]) out.push(k);
  }
  return out;
}

export type CompileOutcome =
  | {
      ok: true;
      /** The response body in UTF-8: `head`, then the fields of the compile, then `}`. */
      body: Uint8Array;
      ops: number;
      rerunFrom?: string;
      reused: number;
    }
  | CompileFailure;

/** The compiler's op-limit messages ("… ops, over the limit of N"): a 413, not a 400. */
const OP_LIMIT = /over the limit of [\d,]+/;

/** Plan validation is the last pass: its failures are a plan that is invalid, not bad input. */
const PLAN_PASS = 'validate-plan';

export type CompileFailure = { ok: false; status: 400 | 413 | 422; errors: Issue[] };

/** A failed compile as the API answers it: bad input (400), too large (413) or an invalid plan (422). */
export function compileFailure(result: Extract<CompileResult, { ok: false }>): CompileFailure {
  const failedPass = result.snapshots[result.snapshots.length - 1]?.pass;
  if (failedPass === PLAN_PASS) {
    return { ok: false, status: 422, errors: result.errors.map((i) => underPath('plan', i)) };
  }
  const errors = result.errors.map((i) => underPath('design', i));
  return { ok: false, status: errors.some((i) => OP_LIMIT.test(i.message)) ? 413 : 400, errors };
}

/** The compiler bounds its estimate of the size; the plan's exact count is checked again here. */
export function opLimit(ops: number, maxOps: number): CompileFailure | undefined {
  if (ops <= maxOps) return undefined;
  const message = `the design has ${ops.toLocaleString('en-US')} ops, over the limit of ${maxOps.toLocaleString('en-US')}`;
  return { ok: false, status: 413, errors: [{ path: 'design', message }] };
}

const utf8 = new TextEncoder();

export function compileResponse(
  design: Design,
  include: CompileInclude,
  maxOps: number,
  previous?: IncrementalState,
  /** The opening of the body up to the compile's fields: `{` or `{"ok":true,…,`. */
  head = '{',
): { outcome: CompileOutcome; state: IncrementalState } {
  const t0 = performance.now();
  const run = runDesign(design, {
    maxOps,
    keepSnapshots: include.snapshots !== 'none',
    incremental: { previous },
  });
  const { incremental } = run;
  const { state } = incremental;
  if (!run.ok) return { outcome: compileFailure(run.compiled), state };
  const result = run.compiled;
  const tooLarge = opLimit(result.ops, maxOps);
  if (tooLarge) return { outcome: tooLarge, state };
  const { compileMs } = run;
  const { result: simulated, ms: simulateMs } = simulateRun(run, include.timeline);
  if (!simulated.ok) {
    return {
      outcome: { ok: false, status: 422, errors: simulated.errors.map((i) => underPath('plan', i)) },
      state,
    };
  }
  const { sim } = simulated;
  const timings = { compileMs, simulateMs };
  // Exactly the object of `stagecraft simulate --json` (docs/api.md).
  let steady: SteadyState | undefined;
  if (include.steps !== undefined) {
    const r = steadyRun(run, include.steps);
    if (!r.ok)
      return {
        outcome: { ok: false, status: 422, errors: r.errors.map((i) => underPath('plan', i)) },
        state,
      };
    steady = r.steady;
  }
  const metrics = metricsReport(design.name, result.ops, sim, timings, steady);
  // Bounded inputs keep totals finite; should one still overflow, say so rather than send `null`.
  const overflow = nonFinitePath(metrics, ['metrics']);
  if (overflow !== undefined) {
    const message = `${overflow} is not a finite number: the design's costs or sizes are too large to simulate`;
    return { outcome: { ok: false, status: 422, errors: [{ path: 'design', message }] }, state };
  }
  const timingsAll = { compileMs, simulateMs, totalMs: performance.now() - t0 };
  const reuse = {
    reused: incremental.reused,
    ...(incremental.rerunFrom !== undefined ? { rerunFrom: incremental.rerunFrom } : {}),
  };
  // The body's fields in the order of docs/api.md, written piece by piece: the DAGs through
  // their own writer, the rest through JSON.stringify.
  const texts: NodeTexts = new Map();
  const json =
    `${head}"ops":${JSON.stringify(result.ops)},"timings":${JSON.stringify(timingsAll)},"incremental":${JSON.stringify(reuse)}` +
    `,"passes":${include.snapshots === 'none' ? '[]' : passEntriesJson(result.snapshots, include.snapshots === 'full', texts)}` +
    (include.dag ? `,"dag":${wireDagJson(result.dag, texts)}` : '') +
    `,"program":${JSON.stringify(result.program)}` +
    (include.plan ? `,"plan":${JSON.stringify(result.plan)}` : '') +
    `,"simulation":${JSON.stringify(sim)},"metrics":${JSON.stringify(metrics)}}`;
  return {
    outcome: {
      ok: true,
      body: utf8.encode(json),
      ops: result.ops,
      ...reuse,
    },
    state,
  };
}

/**
 * Per pass, as a JSON array: its time, the DAG's size after it, which node ids it added, removed
 * or changed and, when `full`, the DAG after it.
 */
function passEntriesJson(snapshots: readonly PassSnapshot[], full: boolean, texts: NodeTexts): string {
  let current: Dag | undefined;
  const entries = snapshots.map((s) => {
    const next = s.dag ?? current;
    current = next;
    // The pass manager records what each pass that changed the DAG did to it.
    const diff = s.diff ?? NO_DIFF;
    const entry = JSON.stringify({
      pass: s.pass,
      ms: s.ms,
      nodes: next ? nodeCount(next) : 0,
      edges: next?.edges.from.length ?? 0,
      added: diff.added,
      removed: diff.removed,
      changed: diff.changed,
    });
    return full && next ? `${entry.slice(0, -1)},"dag":${wireDagJson(next, texts)}}` : entry;
  });
  return `[${entries.join(',')}]`;
}

const NO_DIFF: NodeDiff = { added: [], removed: [], changed: [] };
