/**
 * One compile request, start to finish, as a worker runs it: compile (incrementally when the
 * design was compiled before), simulate, and the response body of `POST /api/compile` as UTF-8
 * JSON bytes: the worker transfers them to the main thread (no copy, no structured clone of a
 * megabyte string) and the main thread writes them to the socket as they are (no encoding, no
 * re-serialisation). Pure: no I/O, no threads.
 */
import { type Dag, type DagNode, type Design, type Issue, nodeCount } from '@stagecraft/ir';
import type { CompileResult, IncrementalState, PassSnapshot } from '@stagecraft/passes';
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
    const prev = current;
    const next = s.dag ?? current;
    current = next;
    const diff = next && next !== prev ? nodeDiff(prev, next) : NO_DIFF;
    const entry = JSON.stringify({
      pass: s.pass,
      ms: s.ms,
      nodes: next ? nodeCount(next) : 0,
      edges: next?.edges.from.length ?? 0,
      ...diff,
    });
    return full && next ? `${entry.slice(0, -1)},"dag":${wireDagJson(next, texts)}}` : entry;
  });
  return `[${entries.join(',')}]`;
}

const NO_DIFF = { added: [], removed: [], changed: [] } as const;

function nodeDiff(
  prev: Dag | undefined,
  next: Dag,
): { added: string[]; removed: string[]; changed: string[] } {
  const added: string[] = [];
  const changed: string[] = [];
  if (!prev) return { added: next.nodes.map((n) => n.id), removed: [], changed };
  const p = prev.nodes;
  const q = next.nodes;
  // Passes keep the order of the nodes they do not add or drop: walk both lists side by side
  // while the ids line up (node ids are unique in a DAG), the general case only past that point.
  const m = Math.min(p.length, q.length);
  let i = 0;
  for (; i < m; i++) {
    const a = p[i]!;
    const b = q[i]!;
    if (a === b) continue;
    if (a.id !== b.id) break;
    if (!sameFields(a, b)) changed.push(b.id);
  }
  if (i === m) {
    for (let j = m; j < q.length; j++) added.push(q[j]!.id);
    return { added, removed: p.slice(m).map((n) => n.id), changed };
  }
  const before = new Map<string, DagNode>();
  for (let j = i; j < p.length; j++) before.set(p[j]!.id, p[j]!);
  const seen = new Set<string>();
  for (let j = i; j < q.length; j++) {
    const n = q[j]!;
    seen.add(n.id);
    const old = before.get(n.id);
    if (old === undefined) added.push(n.id);
    // Passes share the nodes they do not rewrite, so an unchanged reference is an unchanged node.
    else if (old !== n && !sameFields(old, n)) changed.push(n.id);
  }
  const removed: string[] = [];
  for (let j = i; j < p.length; j++) if (!seen.has(p[j]!.id)) removed.push(p[j]!.id);
  return { added, removed, changed };
}

/** Nodes are flat records of scalars, small arrays (dims) and small records (provenance). */
function sameFields(a: object, b: object): boolean {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  for (const k of keys) {
    const x = ra[k];
    const y = rb[k];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const j of kx) {
      if ((x as Record<string, unknown>)[j] !== (y as Record<string, unknown>)[j]) return false;
    }
  }
  return true;
}
