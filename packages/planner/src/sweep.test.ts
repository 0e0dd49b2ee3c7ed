import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { sweep } from './index.ts';

const oneFOneB: Design = {
  format: 'stagecraft/design@3',
  name: '1F1B',
  model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [{ op: 'schedule', builder: '1f1b', microbatches: 8 }],
};

describe('sweep', () => {
  it('follows 1F1B’s (m+p−1)(F+B) over the microbatches', () => {
    const points = sweep(oneFOneB, 'microbatches', [4, 8, 16]);
    expect(points.map((p) => p.stepMs)).toEqual([21, 33, 57]);
    expect(points[0]!.bubbleRatio).toBeCloseTo(3 / 7, 9);
  });

  it('follows it over the stages, cutting the model into as many', () => {
    expect(sweep(oneFOneB, 'stages', [2, 4]).map((p) => p.stepMs)).toEqual([27, 33]);
  });

  it('says why a value does not compile, for that value alone', () => {
    const points = sweep(oneFOneB, 'microbatches', [0, 8]);
    expect(points[0]).toEqual({ value: 0, error: '0 is not a positive whole number' });
    expect(points[1]!.stepMs).toBe(33);
    const bare = { ...oneFOneB, directives: [] };
    expect(sweep(bare, 'stages', [2])[0]!.error).toBe('the design has no schedule directive to sweep');
  });
});
