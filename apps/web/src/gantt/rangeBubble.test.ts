import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../test/simulatedExamples.ts';
import { example } from '../../test/testDesigns.ts';
import { layoutGantt } from './layout.ts';
import { readRange } from './rangeReading.ts';
import { planOutline } from './timelinePlan.ts';

const examples = readdirSync(join(dirname(fileURLToPath(import.meta.url)), '../../../../examples'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));

describe("a range over the whole step reads the metric bar's bubble", () => {
  // The metric: Σ idle compute / (devices × step) over the devices the design uses, a group
  // lowered once counting for each device it stands for (packages/sim, bubbleRatio). Idle
  // communication lanes, unused GPUs of the cluster and replicas drawn once are no more bubble
  // in a range than in the metric.
  it.each(examples)('%s', (name) => {
    const { sim, plan } = run(example(name));
    // The page lays the timeline out from the plan's outline (store: ResultView).
    const outline = planOutline(plan);
    const r = readRange(layoutGantt(sim, outline), outline, 0, sim.makespanMs);
    expect(r.durationMs).toBeCloseTo(sim.makespanMs, 9);
    expect(r.bubbleRatio).toBeCloseTo(sim.bubbleRatio, 9);
  });
});
