import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { bubbleAt, nearestInLane, opAt } from './hitTest.ts';
import { layoutGantt } from './layout.ts';

describe('hit-testing the timeline', () => {
  const { sim, plan } = runExample('1f1b-p4-m8');
  const layout = layoutGantt(sim, plan);
  const lane = (device: number) => layout.lanes.find((l) => l.device === device && l.stream === 'compute')!;
  const mid = (device: number) => lane(device).top + lane(device).height / 2;
  const id = (i: number) => layout.ops[i]?.ev.id;

  it('finds the op under a time and a row', () => {
    expect(id(opAt(layout, 0.5, mid(0)))).toBe('F.b0.mb0');
    expect(id(opAt(layout, 11, mid(0)))).toBe('B.b0.mb0');
    expect(opAt(layout, 5, mid(0))).toBe(-1);
    expect(opAt(layout, 0.5, lane(0).top - 50)).toBe(-1);
  });

  it('finds the nearest op of the lane in a gap', () => {
    expect(id(nearestInLane(layout, 5, mid(0)))).toBe('F.b0.mb3');
    expect(id(nearestInLane(layout, 9.5, mid(0)))).toBe('B.b0.mb0');
  });

  it('finds the bubble under a point of a compute lane', () => {
    const b = layout.bubbles[bubbleAt(layout, 6, mid(0))]!;
    expect(b).toEqual({ device: 0, startMs: 4, endMs: 10 });
    expect(bubbleAt(layout, 0.5, mid(0))).toBe(-1);
  });
});
