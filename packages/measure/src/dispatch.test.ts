import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { measuredTrace, stagedDesign } from '../test/measuredDesigns.ts';
import { calibrate, compareMeasured, readTrace } from './index.ts';

const stages = [
  { F: 2, BI: 1.5, BW: 1 },
  { F: 3, BI: 2, BW: 0.5 },
  { F: 1.5, BI: 1, BW: 1.25 },
];

/** A design whose runtime spends `dispatchMs` issuing each instruction. */
function withDispatch(design: Design, dispatchMs: number): Design {
  return { ...design, cluster: { ...design.cluster, dispatchMs } } as Design;
}

function measured(truth: Design) {
  const read = readTrace(measuredTrace(truth), 'measured.json');
  if (!read.ok) throw new Error('trace does not read');
  return read.step;
}

describe('the per-instruction dispatch time', () => {
  it('is recovered from a measured step and written into the calibrated cluster', () => {
    const truth = withDispatch(stagedDesign('truth', 'zb-h1', 6, stages, 3, 0.25), 0.4);
    const guess = stagedDesign('guess', 'zb-h1', 6, stages, 3);
    const step = measured(truth);
    const r = calibrate(guess, step, { files: ['measured.json'], sources: step.sources });
    if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
    expect(r.fits.dispatch!.ms).toBeCloseTo(0.4, 9);
    expect(r.fits.dispatch!.samples).toBeGreaterThan(10);
    expect(r.design.cluster).toEqual({ kind: 'ideal', devices: 3, p2pLatencyMs: 0.25, dispatchMs: 0.4 });
    expect(r.design.description).toContain('dispatch 400 µs per instruction');
    // The op times alone replay the step short; with the dispatch time, exactly.
    expect(r.before.stepErrorPct).toBeLessThan(-10);
    expect(Math.abs(r.after.stepErrorPct)).toBeLessThan(1e-6);
    expect(r.after.opErrorPct.max).toBeLessThan(1e-6);
  });

  it('is what closes the replay error: without it the calibrated design replays short', () => {
    const truth = withDispatch(stagedDesign('truth', '1f1b', 8, stages, 3, 0.1), 0.3);
    const step = measured(truth);
    const r = calibrate(stagedDesign('guess', '1f1b', 8, stages, 3), step, {
      files: ['m.json'],
      sources: step.sources,
    });
    if (!r.ok) throw new Error('refused');
    const { dispatchMs: _, ...withoutDispatch } = r.design.cluster as { dispatchMs?: number };
    const without = compareMeasured({ ...r.design, cluster: withoutDispatch } as Design, step);
    if (!without.ok) throw new Error('refused');
    expect(without.replay.stepErrorPct).toBeLessThan(-5);
    expect(Math.abs(r.after.stepErrorPct)).toBeLessThan(1e-6);
  });

  it('is not fitted from a step whose ops follow one another at once', () => {
    const truth = stagedDesign('truth', 'zb-h1', 6, stages, 3);
    const step = measured(truth);
    const r = calibrate(truth, step, { files: ['m.json'], sources: step.sources });
    if (!r.ok) throw new Error('refused');
    expect(r.fits.dispatch!.ms).toBeCloseTo(0, 9);
    expect(r.design.cluster).toEqual({ kind: 'ideal', devices: 3, p2pLatencyMs: 0 });
  });

  it('leaves out gaps spent waiting for a RECV or another stream', () => {
    // On the last stage every F waits for a RECV: its gap is the pipeline's, not dispatch.
    const truth = withDispatch(stagedDesign('truth', 'gpipe', 4, stages, 3, 5), 0.2);
    const step = measured(truth);
    const r = calibrate(stagedDesign('guess', 'gpipe', 4, stages, 3), step, {
      files: ['m.json'],
      sources: step.sources,
    });
    if (!r.ok) throw new Error('refused');
    expect(r.fits.dispatch!.ms).toBeCloseTo(0.2, 9);
  });
});
