import { SCHEDULE_BUILDERS, type ScheduleBuilderName } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { inputFor, microbatchesPerStage } from '../../test/builders/builderInput.ts';
import { programViolations } from '../../test/builders/programInvariants.ts';
import { runUnitCost } from '../../test/builders/unitCostRun.ts';
import type { BuilderInput } from './builder.ts';
import { BUILDERS, getBuilder } from './index.ts';

/** (p, m, v) each builder accepts, drawn around its constraints. */
function validInput(name: ScheduleBuilderName): fc.Arbitrary<BuilderInput> {
  const builder = BUILDERS[name];
  const chunks =
    builder.fixedChunks === undefined ? fc.integer({ min: 1, max: 4 }) : fc.constant(builder.fixedChunks);
  return fc
    .record({ ranks: fc.integer({ min: 1, max: 8 }), extra: fc.integer({ min: 0, max: 12 }), chunks })
    .map(({ ranks, extra, chunks }) => {
      switch (name) {
        case 'interleaved-1f1b':
          return inputFor(builder, ranks, ranks * (1 + (extra % 4)), chunks);
        case 'dualpipev':
          return inputFor(builder, ranks, 2 * ranks + extra, chunks);
        case 'dualpipe': {
          const even = 2 * Math.ceil(ranks / 2);
          return inputFor(builder, even, 2 * even + 2 * extra, chunks);
        }
        default:
          return inputFor(builder, ranks, 1 + extra, chunks);
      }
    });
}

const costs = fc.record({
  F: fc.integer({ min: 1, max: 4 }),
  BI: fc.integer({ min: 1, max: 4 }),
  BW: fc.integer({ min: 1, max: 4 }),
});

test('BUILDERS has one builder for every schedule name, under that name', () => {
  expect(Object.keys(BUILDERS).toSorted()).toEqual([...SCHEDULE_BUILDERS].toSorted());
  for (const name of SCHEDULE_BUILDERS) expect(getBuilder(name).name).toBe(name);
});

describe.each(SCHEDULE_BUILDERS)('%s', (name) => {
  const builder = getBuilder(name);

  test('accepts its default chunks', () => {
    const input = inputFor(builder, 4, 16);
    expect(builder.check(input)).toEqual([]);
    if (builder.fixedChunks !== undefined) expect(builder.defaultChunks).toBe(builder.fixedChunks);
  });

  test('runs every (stage, microbatch) once: one F, then one B or one BI and its BW, on its own rank', () => {
    fc.assert(
      fc.property(validInput(name), (input) => {
        expect(builder.check(input)).toEqual([]);
        expect(programViolations(builder.build(input), microbatchesPerStage(input))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  test('never deadlocks when the ranks run their programs in order, whatever the op costs', () => {
    fc.assert(
      fc.property(validInput(name), costs, (input, opCosts) => {
        const run = runUnitCost(builder.build(input), opCosts);
        expect(run.makespan).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });

  test('is deterministic', () => {
    const input = inputFor(builder, 4, 16);
    expect(builder.build(input)).toEqual(builder.build(input));
  });

  test('refuses a wrong chunk count or no microbatches with a reason naming the field', () => {
    const noMicrobatches = builder.check(inputFor(builder, 4, 0));
    expect(noMicrobatches.map((p) => p.field)).toContain('microbatches');
    if (builder.fixedChunks !== undefined) {
      const wrongChunks = builder.check(inputFor(builder, 4, 16, builder.fixedChunks + 1));
      expect(wrongChunks).toEqual([
        {
          field: 'chunks',
          message: expect.stringMatching(new RegExp(`^${name} runs exactly ${builder.fixedChunks} chunk`)),
        },
      ]);
    }
    expect(() => builder.build(inputFor(builder, 4, 0))).toThrow(/microbatch/);
  });
});
