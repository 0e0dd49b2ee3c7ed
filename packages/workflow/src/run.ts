/**
 * A design compiled once, and its plan simulated at most once: what the API, the CLI and the web
 * app's worker compute, and what exports and comparisons read. Everything that needs a plan takes
 * a run rather than a design, so no path through the code compiles the same design twice.
 */
import { type Design, type Issue, now } from '@stagecraft/ir';
import {
  type CompileOptions,
  type CompileResult,
  compile,
  compileIncremental,
  type IncrementalState,
} from '@stagecraft/passes';
import { type SimulationResult, type SteadyStateResult, simulate, steadyState } from '@stagecraft/sim';

export type Compiled = Extract<CompileResult, { ok: true }>;

export interface RunOptions extends CompileOptions {
  /**
   * Compile incrementally, reusing `previous` (the state of the last compile of an earlier version
   * of this design, if any) where the inputs of a pass are unchanged; the run carries the state
   * for the next edit. Absent: a plain compile, which keeps nothing for a next one.
   */
  incremental?: { previous: IncrementalState | undefined };
}

/** What an incremental compile reused and what it leaves for the next one. */
export interface IncrementalRun {
  state: IncrementalState;
  /** Name of the first pass that ran again (undefined when the previous result was reused whole). */
  rerunFrom?: string;
  /** Passes whose previous output was reused. */
  reused: number;
}

/** The one simulation of a run's plan (`simulateRun`). */
export interface RunSimulation {
  readonly result: SimulationResult;
  /** Whether it kept the timeline and the memory curves. */
  readonly keepTimeline: boolean;
  readonly ms: number;
}

export interface DesignRun {
  readonly ok: true;
  readonly design: Design;
  readonly compiled: Compiled;
  /** Wall time of the compile, an incremental compile's bookkeeping included. */
  readonly compileMs: number;
  readonly incremental: IncrementalRun | undefined;
  /** Set by `simulateRun`. */
  simulation: RunSimulation | undefined;
}

export interface RunFailure {
  readonly ok: false;
  readonly errors: Issue[];
  /** The refused compile: its snapshots end with the pass that refused the design. */
  readonly compiled: Extract<CompileResult, { ok: false }>;
  readonly incremental: IncrementalRun | undefined;
}

/** `design` compiled once, as `options` ask; the run carries the compile's state when incremental. */
export function runDesign(
  design: Design,
  options: RunOptions & { incremental: { previous: IncrementalState | undefined } },
): (DesignRun | RunFailure) & { readonly incremental: IncrementalRun };
export function runDesign(design: Design, options?: RunOptions): DesignRun | RunFailure;
export function runDesign(design: Design, options: RunOptions = {}): DesignRun | RunFailure {
  const t0 = now();
  let compiled: CompileResult;
  let incremental: IncrementalRun | undefined;
  if (options.incremental) {
    const inc = compileIncremental(design, options.incremental.previous, options);
    compiled = inc.result;
    incremental = { state: inc.state, reused: inc.reused };
    if (inc.rerunFrom !== undefined) incremental.rerunFrom = inc.rerunFrom;
  } else compiled = compile(design, options);
  const compileMs = now() - t0;
  if (!compiled.ok) return { ok: false, errors: compiled.errors, compiled, incremental };
  return { ok: true, design, compiled, compileMs, incremental, simulation: undefined };
}

/**
 * The run's plan simulated, once: a later call reuses the simulation, unless it needs the
 * timeline the earlier one did not keep.
 */
export function simulateRun(run: DesignRun, keepTimeline: boolean): RunSimulation {
  const done = run.simulation;
  if (done && (done.keepTimeline || !keepTimeline)) return done;
  const t0 = now();
  const result = simulate(run.compiled.plan, { keepTimeline });
  run.simulation = { result, keepTimeline, ms: now() - t0 };
  return run.simulation;
}

/**
 * The run's steady state over `steps` steps in a row, from its one simulation (made if need be):
 * the single step is simulated once, the repeated plan once more.
 */
export function steadyRun(run: DesignRun, steps: number): SteadyStateResult {
  const one = simulateRun(run, false).result;
  if (!one.ok) return one;
  return steadyState(run.compiled.plan, steps, one.sim.makespanMs);
}
