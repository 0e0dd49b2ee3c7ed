import { SCHEDULE_BUILDERS } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { inputFor } from '../../test/builders/builderInput.ts';
import { microbatchesPerDirection, scheduleMicrobatches } from './builder.ts';
import { getBuilder } from './index.ts';

describe('a builder’s declared directions', () => {
  test.each(SCHEDULE_BUILDERS)(
    '%s runs as many pipelines as it declares, each its share of the microbatches',
    (name) => {
      const builder = getBuilder(name);
      const input = inputFor(builder, 4, 8);
      expect(builder.check(input)).toEqual([]);
      const perDirection = new Map<number, Set<number>>();
      for (const program of builder.build(input).programs)
        for (const slot of program)
          for (const a of slot) {
            const dir = a.dir ?? 0;
            if (!perDirection.has(dir)) perDirection.set(dir, new Set());
            perDirection.get(dir)!.add(a.mb);
          }
      expect(perDirection.size).toBe(builder.directions);
      for (const mbs of perDirection.values()) expect(mbs.size).toBe(microbatchesPerDirection(builder, 8));
    },
  );

  test('DualPipe halves the schedule’s microbatches and a one-way builder keeps them', () => {
    expect(microbatchesPerDirection(getBuilder('dualpipe'), 8)).toBe(4);
    expect(scheduleMicrobatches(getBuilder('dualpipe'), 4)).toBe(8);
    expect(microbatchesPerDirection(getBuilder('1f1b'), 8)).toBe(8);
    expect(scheduleMicrobatches(getBuilder('zb-h1'), 8)).toBe(8);
  });
});
