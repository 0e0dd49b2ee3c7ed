import { scheduleOpEstimate, scheduleRanks } from '@stagecraft/ir';
import { lowerModel } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { example } from '../test/harness.ts';
import { estimatedOps } from './designSize.ts';

describe('estimatedOps', () => {
  test.each(['deepseek-v3-pp16-ep128-dualpipe', 'qwen3-30b-a3b-pp4-ep8-1f1b', 'llama3-8b-dgx-h100-pp4-1f1b'])(
    '%s: a schedule counts the blocks the compiler lowers the model to, on its ranks',
    (name) => {
      const design = example(name);
      const blocks = lowerModel(design.model).length;
      let expected = 0;
      for (const d of design.directives)
        expected +=
          d.op === 'schedule'
            ? scheduleOpEstimate(d.microbatches, blocks, scheduleRanks(d, design.cluster))
            : 1;
      expect(estimatedOps(design)).toBe(expected);
    },
  );

  test('a transformer of a trillion layers is sized without being lowered', () => {
    const design = example('llama3-8b-dgx-h100-pp4-1f1b');
    const huge = { ...design, model: { ...design.model, layers: 1e12 } } as typeof design;
    const t0 = performance.now();
    expect(estimatedOps(huge)).toBeGreaterThan(1e12);
    expect(performance.now() - t0).toBeLessThan(100);
  });
});
