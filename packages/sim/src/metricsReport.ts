/**
 * The metrics object of `stagecraft simulate --json`, which `POST /api/compile` returns as
 * `metrics` too: one function builds it for both so the two cannot drift apart.
 */
import type { SteadyState } from './steadyState.ts';
import type { Simulation } from './types.ts';

export interface MetricsTimings {
  compileMs: number;
  simulateMs: number;
}

export interface MetricsReport {
  name: string;
  makespanMs: number;
  bubbleRatio: number;
  bubbleOverIdeal: number;
  exposedCommMs: number;
  ops: number;
  devices: {
    device: number;
    busyMs: number;
    idleMs: number;
    peakMemoryBytes: number;
    peakActivationBytes: number;
  }[];
  tokensPerSecond?: number;
  mfu?: number;
  warnings?: string[];
  /**
   * Over `steps` steps in a row (asked for): time per step once each device starts its next step
   * as soon as its own optimizer step allows (docs/cost-model.md, "Steady state").
   */
  steadyState?: { steps: number; steadyStepMs: number; tokensPerSecond?: number };
  timings: MetricsTimings;
}

export function metricsReport(
  name: string,
  ops: number,
  sim: Simulation,
  timings: MetricsTimings,
  steady?: SteadyState,
): MetricsReport {
  return {
    name,
    makespanMs: sim.makespanMs,
    bubbleRatio: sim.bubbleRatio,
    bubbleOverIdeal: sim.bubbleOverIdeal,
    exposedCommMs: sim.exposedCommMs,
    ops,
    devices: sim.devices.map((d) => ({
      device: d.device,
      busyMs: d.busyMs,
      idleMs: d.idleMs,
      peakMemoryBytes: d.peakMemoryBytes,
      peakActivationBytes: d.peakActivationBytes,
    })),
    ...(sim.tokensPerSecond !== undefined ? { tokensPerSecond: sim.tokensPerSecond } : {}),
    ...(sim.mfu !== undefined ? { mfu: sim.mfu } : {}),
    ...(sim.warnings !== undefined ? { warnings: sim.warnings } : {}),
    ...(steady ? { steadyState: steadyFigures(sim, steady) } : {}),
    timings,
  };
}

function steadyFigures(sim: Simulation, steady: SteadyState): NonNullable<MetricsReport['steadyState']> {
  const out: NonNullable<MetricsReport['steadyState']> = {
    steps: steady.steps,
    steadyStepMs: steady.steadyStepMs,
  };
  // Tokens per step are the simulation's rate times its step time.
  if (sim.tokensPerSecond !== undefined && steady.steadyStepMs > 0)
    out.tokensPerSecond = (sim.tokensPerSecond * sim.makespanMs) / steady.steadyStepMs;
  return out;
}
