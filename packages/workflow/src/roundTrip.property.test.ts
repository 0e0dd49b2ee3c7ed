/**
 * For any schedule a builder makes (DualPipe aside, which torch cannot express), the torch CSV
 * written from it reads back to a design that runs the same step: same makespan, same busy time
 * and peak memory on every device; and that design writes the same CSV again.
 */
import { type Design, SCHEDULE_BUILDERS, type ScheduleBuilderName } from '@stagecraft/ir';
import { BUILDERS, importTorchCsv } from '@stagecraft/passes';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { compareDesigns, exportDesign } from './index.ts';

const builders = SCHEDULE_BUILDERS.filter((b) => b !== 'dualpipe');

function design(builder: ScheduleBuilderName, ranks: number, microbatches: number): Design | undefined {
  const b = BUILDERS[builder];
  const chunks = b.fixedChunks ?? b.defaultChunks;
  const input = { builder, ranks, microbatches, chunks, virtualStages: ranks * chunks };
  if (b.check(input).length > 0) return undefined;
  return {
    format: 'stagecraft/design@1',
    name: `${builder} p${ranks} m${microbatches}`,
    model: {
      kind: 'synthetic',
      stages: ranks * chunks,
      costs: { F: 1, BI: 0.75, BW: 0.5, FandB: 2 },
      activationBytes: 1024,
      outputBytes: 64,
    },
    cluster: { kind: 'ideal', devices: ranks, p2pLatencyMs: 0.125 },
    directives: [{ op: 'schedule', builder, microbatches }],
  };
}

test('builder schedules survive torch-csv export → import → export, and simulate the same', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...builders),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 12 }),
      (builder, ranks, microbatches) => {
        const d = design(builder, ranks, microbatches);
        fc.pre(d !== undefined);
        const csv = exportDesign(d!, 'torch-csv');
        if (!csv.ok) throw new Error(JSON.stringify(csv.errors));
        const back = importTorchCsv(csv.text, { model: d!.model, cluster: d!.cluster, name: d!.name });
        if (!back.ok) throw new Error(JSON.stringify(back.errors));
        const again = exportDesign(back.design, 'torch-csv');
        expect(again.ok && again.text).toBe(csv.text);
        const [a, b] = compareDesigns([d!, back.design]);
        expect(b).toEqual(a);
      },
    ),
    { numRuns: 40 },
  );
});
