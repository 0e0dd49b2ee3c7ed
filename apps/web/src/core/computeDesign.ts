/**
 * One recompute of the design: parse, compile, simulate, and lay the DAG out for the canvas.
 * The compile worker runs it on every edit; it is plain code so tests and the benchmark run it too.
 */
import { type Dag, type Issue, nodeCount, type Plan, parseDesign } from '@stagecraft/ir';
import type { ExpandedDirective, IncrementalState, NodeDiff } from '@stagecraft/passes';
import type { Simulation } from '@stagecraft/sim';
import { runDesign, simulateRun, steadyRun } from '@stagecraft/workflow';
import { buildDagGraph, type DagGraph } from './dagGraph.ts';

export interface PassInfo {
  pass: string;
  ms: number;
  /** Nodes of the DAG after the pass, when the pass changed the DAG. */
  nodes?: number;
}

export interface ComputeOk {
  ok: true;
  simulation: Simulation;
  plan: Plan;
  /** The final DAG: what timeline moves are checked against. */
  dag: Dag;
  program: ExpandedDirective[];
  passes: PassInfo[];
  /** The DAG laid out for the canvas (absent when the caller lays it out later). */
  graph?: DagGraph;
  ops: number;
  compileMs: number;
  simulateMs: number;
  /** Time per step over STEADY_STEPS steps in a row (designs up to STEADY_MAX_OPS ops). */
  steady?: { steps: number; steadyStepMs: number };
}

/** Steps the app's steady-state figure simulates, and the largest design it does so for on every edit. */
export const STEADY_STEPS = 3;
export const STEADY_MAX_OPS = 50_000;

export interface ComputeFailed {
  ok: false;
  errors: Issue[];
}

export type ComputeResult = ComputeOk | ComputeFailed;

/** What a worker keeps between requests to answer pass-inspector and layout requests. */
export interface Compiled {
  dag: Dag;
  plan: Plan;
  program: ExpandedDirective[];
  snapshots: { pass: string; dag?: Dag; diff?: NodeDiff }[];
  /** What the next compile of an edit of this design reuses. */
  incremental: IncrementalState;
}

export function computeDesign(
  input: unknown,
  expanded: ReadonlySet<string>,
  options: { layout?: boolean; previous?: IncrementalState } = {},
): { result: ComputeResult; compiled?: Compiled; incremental?: IncrementalState } {
  const parsed = parseDesign(input);
  if (!parsed.ok) return { result: { ok: false, errors: parsed.errors } };
  // Only the passes whose inputs the edit changed run again.
  const run = runDesign(parsed.design, { incremental: { previous: options.previous } });
  const { state } = run.incremental;
  if (!run.ok) return { result: { ok: false, errors: run.errors }, incremental: state };
  const c = run.compiled;
  const { result: s, ms: simulateMs } = simulateRun(run, true);
  if (!s.ok) return { result: { ok: false, errors: s.errors }, incremental: state };
  // The repeated plan costs STEADY_STEPS more simulations: only while edits stay interactive.
  const steady = c.ops <= STEADY_MAX_OPS ? steadyRun(run, STEADY_STEPS) : undefined;
  const compiled: Compiled = {
    dag: c.dag,
    plan: c.plan,
    program: c.program,
    snapshots: c.snapshots,
    incremental: state,
  };
  return {
    compiled,
    incremental: state,
    result: {
      ok: true,
      simulation: s.sim,
      plan: c.plan,
      dag: c.dag,
      program: c.program,
      passes: c.snapshots.map((p) =>
        p.dag ? { pass: p.pass, ms: p.ms, nodes: nodeCount(p.dag) } : { pass: p.pass, ms: p.ms },
      ),
      ...(options.layout === false ? {} : { graph: buildDagGraph(c.dag, { expanded, program: c.program }) }),
      ops: c.ops,
      compileMs: c.compileMs,
      simulateMs,
      ...(steady?.ok
        ? { steady: { steps: steady.steady.steps, steadyStepMs: steady.steady.steadyStepMs } }
        : {}),
    },
  };
}

/** The DAG after `pass` (the latest snapshot at or before it), with what that pass added or changed. */
export function passGraph(
  compiled: Compiled,
  pass: string,
  expanded: ReadonlySet<string>,
): DagGraph | undefined {
  const at = compiled.snapshots.findIndex((s) => s.pass === pass);
  if (at < 0) return undefined;
  let shown: { dag?: Dag; diff?: NodeDiff } | undefined;
  for (let i = at; i >= 0 && !shown; i--) if (compiled.snapshots[i]!.dag) shown = compiled.snapshots[i];
  if (!shown?.dag) return undefined;
  // Only a pass that produced this snapshot is credited with its differences, as the pass
  // manager recorded them.
  const own = shown === compiled.snapshots[at] ? shown.diff : undefined;
  const highlight = { added: new Set(own?.added), changed: new Set(own?.changed) };
  return buildDagGraph(shown.dag, { expanded, program: compiled.program, highlight });
}

export function layoutGraph(compiled: Compiled, expanded: ReadonlySet<string>): DagGraph {
  return buildDagGraph(compiled.dag, { expanded, program: compiled.program });
}
