import { PLAN_FORMAT, type Plan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { modelFlopsPerStep } from './modelFlops.ts';

const op = (o: 'F' | 'B' | 'BI' | 'BW' | 'RECOMPUTE' | 'UPD', id: string, flops?: number) => ({
  op: o,
  id,
  tags: {},
  waits: [],
  ...(flops !== undefined ? { flops } : {}),
});

describe('model FLOPs of a step', () => {
  it('sum F, B, BI and BW on every device, overlapped members included, recomputation left out', () => {
    const plan: Plan = {
      format: PLAN_FORMAT,
      name: 'p',
      cluster: { preset: 'dgx-h100', nodes: 1 },
      groups: [[0], [1]],
      devices: [
        {
          device: 0,
          group: 0,
          stages: [0],
          paramBytes: 0,
          streams: [
            {
              stream: 'compute',
              instructions: [
                op('F', 'a', 10),
                op('RECOMPUTE', 'r', 10),
                op('BI', 'b', 20),
                op('BW', 'c', 5),
                op('UPD', 'u'),
              ],
            },
          ],
        },
        {
          device: 1,
          group: 1,
          stages: [1],
          paramBytes: 0,
          streams: [
            {
              stream: 'compute',
              instructions: [
                { op: 'OVERLAP', id: 'o', tags: {}, waits: [], members: [op('F', 'x', 7), op('B', 'y', 11)] },
              ],
            },
          ],
        },
      ],
    };
    expect(modelFlopsPerStep(plan)).toBe(10 + 20 + 5 + 7 + 11);
  });
});
