import { describe, expect, it } from 'vitest';
import { compiled, moeDesign } from '../../test/parallelDesigns.ts';

describe('order slots joined by all-to-all', () => {
  const design = moeDesign(
    [
      {
        op: 'schedule',
        builder: 'dualpipev',
        ranks: 2,
        microbatches: 4,
        groups: [
          [0, 1],
          [2, 3],
        ],
      },
      { op: 'shard', filter: { EP: '*' }, devices: [0, 1], stream: 'ep' },
      { op: 'shard', filter: { EP: '*' }, devices: [2, 3], stream: 'ep' },
    ],
    { stages: 4 },
  );
  const plan = compiled(design).plan;
  const compute = plan.devices[0]!.streams.find((s) => s.stream === 'compute')!.instructions.map((i) => i.id);

  it('run as their two chains interleaved op by op instead of one fused unit', () => {
    expect(compute.some((id) => id.startsWith('('))).toBe(false);
    // DualPipeV's overlapped [F chunk0 & B chunk1]: attention F, expert B, expert F, attention B.
    const at = compute.indexOf('F.b0.mb3');
    expect(compute.slice(at, at + 4)).toEqual(['F.b0.mb3', 'B.b7.mb1', 'F.b1.mb3', 'B.b6.mb1']);
    const at2 = compute.indexOf('F.b6.mb2');
    expect(compute.slice(at2, at2 + 4)).toEqual(['F.b6.mb2', 'B.b1.mb0', 'F.b7.mb2', 'B.b0.mb0']);
  });

  it('leave the all-to-all of each chain on its own stream, in the interleaved order', () => {
    const ep = plan.devices[0]!.streams.find((s) => s.stream === 'ep')!.instructions.map((i) => i.id);
    const d = ep.indexOf('ALL_TO_ALL.dispatch.F.b0.mb3');
    expect(ep.slice(d, d + 3)).toEqual([
      'ALL_TO_ALL.dispatch.F.b0.mb3',
      'ALL_TO_ALL.dispatch-grad.B.b7.mb1',
      'ALL_TO_ALL.combine.F.b1.mb3',
    ]);
  });
});
