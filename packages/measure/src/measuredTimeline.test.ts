import { runDesign, simulateRun } from '@stagecraft/workflow';
import { describe, expect, it } from 'vitest';
import { measuredTrace, stagedDesign } from '../test/measuredDesigns.ts';
import { compareMeasured, matchPlan, measuredTimeline, readTrace } from './index.ts';

const truth = stagedDesign(
  'truth',
  '1f1b',
  4,
  [
    { F: 2, BI: 1.5, BW: 1 },
    { F: 3, BI: 2, BW: 0.5 },
  ],
  2,
  0.25,
);

function planOf(design = truth) {
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) throw new Error('does not compile');
  const sim = simulateRun(run, true).result;
  if (!sim.ok) throw new Error('does not simulate');
  return { plan: run.compiled.plan, sim: sim.sim };
}

describe('a measured step as a timeline', () => {
  it('draws every measured instruction where it ran, on the time axis the prediction uses', () => {
    const read = readTrace(measuredTrace(truth), 'measured.json');
    if (!read.ok) throw new Error('trace does not read');
    const { plan, sim } = planOf();
    const match = matchPlan(plan, read.step);
    const t = measuredTimeline(plan, match.matched, [0], read.step.alignedClocks);
    const key = (e: { device: number; id: string; startMs: number; endMs: number }) =>
      `${e.device} ${e.id} ${e.startMs.toFixed(6)} ${e.endMs.toFixed(6)}`;
    expect(t.events.map(key).sort()).toEqual((sim.timeline ?? []).map(key).sort());
    expect(t.makespanMs).toBeCloseTo(sim.makespanMs, 9);
    expect(t.events.find((e) => e.id === 'F.b0.mb0')?.op).toBe('F');
  });

  it('starts each device at its own zero when the trace’s clocks are per process', () => {
    const read = readTrace(measuredTrace(truth), 'measured.json');
    if (!read.ok) throw new Error('trace does not read');
    const { plan } = planOf();
    const match = matchPlan(plan, read.step);
    const t = measuredTimeline(plan, match.matched, [0], false);
    for (const device of [0, 1]) {
      const first = Math.min(...t.events.filter((e) => e.device === device).map((e) => e.startMs));
      expect(first).toBe(0);
    }
  });

  it('shows the step the comparison reads, so its lanes and its divergence list agree', () => {
    const read = readTrace(measuredTrace(truth), 'measured.json');
    if (!read.ok) throw new Error('trace does not read');
    const c = compareMeasured(truth, read.step);
    if (!c.ok) throw new Error('does not compare');
    const t = measuredTimeline(planOf().plan, c.match.matched, c.steps, read.step.alignedClocks);
    expect(t.step).toBe(c.steps[0]);
    expect(t.makespanMs).toBeCloseTo(c.replay.measuredStepMs, 9);
  });
});
