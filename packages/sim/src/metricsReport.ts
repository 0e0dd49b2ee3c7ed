/**
 * The metrics object of `stagecraft simulate --json`, which `POST /api/compile` returns as
 * `metrics` too: one function builds it for both so the two cannot drift apart.
 */
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
  timings: MetricsTimings;
}

export function metricsReport(
  name: string,
  ops: number,
  sim: Simulation,
  timings: MetricsTimings,
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
    timings,
  };
}
