/**
 * `compareDesigns`: the figures of several schedules side by side, one row per design, for the
 * CLI's `compare` (the web app's compare view reads the simulations it already has). Bubble in both conventions of the reference:
 * of the total (Σ idle / (devices × step)) and of the ideal time (Σ idle / Σ busy, Megatron's).
 * A design that does not compile or simulate gets a row with its errors, so one bad design does
 * not hide the others.
 */
import type { Design, Issue } from '@stagecraft/ir';
import { exposedCommPerDeviceMs } from '@stagecraft/sim';
import { runDesign, simulateRun, steadyRun } from './run.ts';

export type CompareRow =
  | {
      ok: true;
      name: string;
      /** One training step (the makespan). */
      stepMs: number;
      bubbleRatio: number;
      bubbleOverIdeal: number;
      /** Σ over devices, as `Simulation.exposedCommMs`. */
      exposedCommMs: number;
      /** The same per GPU in use, as the CLI summary, the web app and docs/cost-model.md's table show it. */
      exposedCommPerDeviceMs: number;
      /** Per device of the plan, in device order. */
      peakMemoryBytes: { device: number; bytes: number }[];
      maxPeakMemoryBytes: number;
      tokensPerSecond?: number;
      /** With `steps`: time per step over that many steps in a row (docs/cost-model.md). */
      steadyStepMs?: number;
      ops: number;
      devices: number;
    }
  | { ok: false; name: string; errors: Issue[] };

export function compareDesigns(designs: readonly Design[], options: { steps?: number } = {}): CompareRow[] {
  return designs.map((design): CompareRow => {
    const run = runDesign(design, { keepSnapshots: false });
    if (!run.ok) return { ok: false, name: design.name, errors: run.errors };
    const s = simulateRun(run, false).result;
    if (!s.ok) return { ok: false, name: design.name, errors: s.errors };
    const { sim } = s;
    const peaks = sim.devices.map((d) => ({ device: d.device, bytes: d.peakMemoryBytes }));
    const row: CompareRow = {
      ok: true,
      name: design.name,
      stepMs: sim.makespanMs,
      bubbleRatio: sim.bubbleRatio,
      bubbleOverIdeal: sim.bubbleOverIdeal,
      exposedCommMs: sim.exposedCommMs,
      exposedCommPerDeviceMs: exposedCommPerDeviceMs(sim),
      peakMemoryBytes: peaks,
      maxPeakMemoryBytes: Math.max(0, ...peaks.map((p) => p.bytes)),
      ops: sim.ops,
      devices: sim.devices.length,
    };
    if (sim.tokensPerSecond !== undefined) row.tokensPerSecond = sim.tokensPerSecond;
    if (options.steps !== undefined) {
      const steady = steadyRun(run, options.steps);
      if (!steady.ok) return { ok: false, name: design.name, errors: steady.errors };
      row.steadyStepMs = steady.steady.steadyStepMs;
    }
    return row;
  });
}
