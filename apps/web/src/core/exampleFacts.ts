/**
 * What the examples gallery says of each example without compiling 29 designs on page load (a
 * DeepSeek-V3 compile alone takes seconds): whether it fits in its GPUs' memory, from the
 * simulated peak of every device against the cluster's capacity (sim devices[].oom). The facts
 * are written by `npx tsx apps/web/scripts/example-facts.ts` into exampleFacts.json and checked
 * against a fresh compile by exampleFacts.test.ts.
 */
import type { Simulation } from '@stagecraft/sim';
import facts from '../exampleFacts.json' with { type: 'json' };

export interface MemoryFact {
  devices: number;
  /** Devices whose peak exceeds their GPU's memory. */
  oomDevices: number;
  /** The largest peak of any device, bytes. */
  peakBytes: number;
}

export function memoryFact(sim: Simulation): MemoryFact {
  let peakBytes = 0;
  let oomDevices = 0;
  for (const d of sim.devices) {
    peakBytes = Math.max(peakBytes, d.peakMemoryBytes);
    if (d.oom) oomDevices++;
  }
  return { devices: sim.devices.length, oomDevices, peakBytes };
}

export const EXAMPLE_FACTS: Readonly<Record<string, MemoryFact>> = facts;

/** The gallery's sections, by what an example shows. */
export type ExampleGroup = 'schedules' | 'real models' | 'meshes';

export function exampleGroup(design: {
  model: { kind: string };
  directives: readonly { op: string; groups?: readonly unknown[] }[];
}): ExampleGroup {
  const meshed = design.directives.some(
    (d) =>
      d.op === 'schedule' && d.groups?.some((g) => g !== null && typeof g === 'object' && !Array.isArray(g)),
  );
  if (meshed) return 'meshes';
  return design.model.kind === 'synthetic' ? 'schedules' : 'real models';
}
