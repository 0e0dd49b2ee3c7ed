/** A design compiled and simulated once: its step and the peak memory of every device it uses. */
import type { Design, Issue, Plan } from '@stagecraft/ir';
import type { Simulation } from '@stagecraft/sim';
import { runDesign, simulateRun } from '@stagecraft/workflow';

export interface SimulatedDesign {
  ok: true;
  stepMs: number;
  /** Peak memory by device, for the devices some group holds. */
  peakByDevice: Map<number, number>;
  plan: Plan;
  sim: Simulation;
}

export function simulateDesign(
  design: Design,
  keepTimeline = false,
): SimulatedDesign | { ok: false; errors: Issue[] } {
  const run = runDesign(design);
  if (!run.ok) return { ok: false, errors: run.errors };
  const simulated = simulateRun(run, keepTimeline).result;
  if (!simulated.ok) return { ok: false, errors: simulated.errors };
  const used = new Set(run.compiled.plan.devices.filter((d) => d.group >= 0).map((d) => d.device));
  const peakByDevice = new Map<number, number>();
  for (const d of simulated.sim.devices)
    if (used.has(d.device)) peakByDevice.set(d.device, d.peakMemoryBytes);
  return {
    ok: true,
    stepMs: simulated.sim.makespanMs,
    peakByDevice,
    plan: run.compiled.plan,
    sim: simulated.sim,
  };
}

export const issueText = (errors: readonly Issue[]): string =>
  errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
