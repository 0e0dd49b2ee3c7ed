import type { Plan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compute, device, oneFOneB, overlap, plan } from '../test/testPlans.ts';
import { renderAsciiTimeline } from './ascii.ts';
import { simulate } from './simulate.ts';

function render(p: Plan, width?: number): string {
  const r = simulate(p);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return renderAsciiTimeline(r.sim, p, width === undefined ? {} : { width });
}

describe('renderAsciiTimeline', () => {
  it('draws 1F1B on 2 ranks like the published figure: one cell per time unit, F plain, B in brackets', () => {
    const lines = render(oneFOneB(2, 4, { F: 1, B: 2 })).split('\n');
    expect(lines[0]).toBe('1 cell = 1 ms; makespan 15 ms, bubble 20.0% of total (25.0% of ideal)');
    expect(lines[1]).toBe('dev 0 |  0   1   .   .  [0] [0]  2  [1] [1]  3  [2] [2]  .  [3] [3]');
    expect(lines[2]).toBe('dev 1 |  .   0  [0] [0]  1  [1] [1]  2  [2] [2]  3  [3] [3]  .   . ');
    expect(lines[3]).toMatch(/^legend: n forward of microbatch n, \[n\] backward \(fused\)/);
  });

  it('marks split backward, overlapped units and the stage of a device holding two', () => {
    const p = plan([
      device(
        0,
        {
          c: [
            compute('F', 'F0', 1, { mb: 0, tags: { PP: 0 } }),
            compute('BI', 'I0', 1, { mb: 0, tags: { PP: 3 } }),
            compute('BW', 'W0', 1, { mb: 0, tags: { PP: 3 } }),
            overlap(
              'o',
              [
                compute('F', 'F1', 1, { mb: 1, tags: { PP: 0 } }),
                compute('B', 'B0', 1, { mb: 0, tags: { PP: 0 } }),
              ],
              1,
            ),
          ],
        },
        { stages: [0, 3] },
      ),
    ]);
    const out = render(p);
    expect(out).toContain('dev 0 |   0a     (0b)    <0b>   1a&[0a]');
    expect(out).toContain('first, second, ... stage');
  });

  it('falls back to a scaled summary with one letter per op when the step is wider than the width', () => {
    const out = render(oneFOneB(2, 4, { F: 1, B: 2 }), 10).split('\n');
    expect(out[0]).toMatch(/^1 cell = 1\.500 ms \(scaled\)/);
    expect(out[1]).toMatch(/^dev 0 \| [FB.]{10} \| busy 80\.0%$/);
    expect(out.at(-1)).toMatch(/^legend: F forward/);
  });

  it('says so when there is no timeline', () => {
    const p = oneFOneB(2, 2, { F: 1, B: 1 });
    const r = simulate(p, { keepTimeline: false });
    if (!r.ok) throw new Error('unexpected');
    expect(renderAsciiTimeline(r.sim, p)).toBe('no timeline: simulate with keepTimeline');
  });
});
