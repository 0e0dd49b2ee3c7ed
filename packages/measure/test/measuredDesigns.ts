/** Designs whose "measured" step is another design's simulated one: costs known exactly. */
import type { Design } from '@stagecraft/ir';
import { chromeTrace } from '@stagecraft/sim';
import { runDesign, simulateRun } from '@stagecraft/workflow';

type Stage = { F: number; BI: number; BW: number; FandB?: number; UPD?: number };

export function stagedDesign(
  name: string,
  builder: string,
  microbatches: number,
  stages: Stage[],
  devices: number,
  p2pLatencyMs = 0,
): Design {
  return {
    format: 'stagecraft/design@2',
    name,
    model: {
      kind: 'synthetic',
      blocks: stages.map((s, i) => ({ name: `stage ${i}`, tags: { PP: i }, ...s, paramBytes: 1 << 20 })),
    },
    cluster: { kind: 'ideal', devices, p2pLatencyMs },
    directives: [{ op: 'schedule', builder, microbatches }],
  } as Design;
}

/** The Chrome trace of `design`'s simulated step, as the runtime writes a measured one. */
export function measuredTrace(design: Design): string {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) throw new Error(run.errors.map((e) => e.message).join('\n'));
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('simulation failed');
  return JSON.stringify(chromeTrace(run.compiled.plan, sim.sim));
}
