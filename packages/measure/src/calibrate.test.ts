import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { measuredTrace, stagedDesign } from '../test/measuredDesigns.ts';
import { calibrate, readTrace } from './index.ts';

const nominal = { F: 1, BI: 1, BW: 1 };

function calibrated(truth: Design, guess: Design) {
  const read = readTrace(measuredTrace(truth), 'measured.json');
  if (!read.ok) throw new Error('trace does not read');
  const result = calibrate(guess, read.step, { files: ['measured.json'], sources: read.step.sources });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result;
}

const blocksOf = (d: Design) =>
  (d.model as { blocks: { F: number; BI: number; BW: number; FandB?: number }[] }).blocks;

describe('calibration from a measured step', () => {
  it('recovers each stage’s F, BI and BW and the transfer time, and then replays the step exactly', () => {
    const stages = [
      { F: 2, BI: 1.5, BW: 1 },
      { F: 3, BI: 2, BW: 0.5 },
      { F: 1.5, BI: 1, BW: 1.25 },
    ];
    const truth = stagedDesign('truth', 'zb-h1', 6, stages, 3, 0.25);
    const guess = stagedDesign('guess', 'zb-h1', 6, [nominal, nominal, nominal], 3);
    const r = calibrated(truth, guess);
    expect(r.before.stepErrorPct).toBeLessThan(-20);
    blocksOf(r.design).forEach((b, i) => {
      expect(b.F).toBeCloseTo(stages[i]!.F, 9);
      expect(b.BI).toBeCloseTo(stages[i]!.BI, 9);
      expect(b.BW).toBeCloseTo(stages[i]!.BW, 9);
    });
    expect(r.design.cluster).toEqual({ kind: 'ideal', devices: 3, p2pLatencyMs: 0.25 });
    expect(Math.abs(r.after.stepErrorPct)).toBeLessThan(1e-6);
    expect(r.after.opErrorPct.max).toBeLessThan(1e-6);
    expect(r.unmeasured).toEqual([]);
    expect(r.design.description).toContain('Calibrated from measured.json (stagecraft');
  });

  it('splits a fused backward as the model splits BI from BW, keeping the measured sum', () => {
    const truth = stagedDesign(
      'truth',
      '1f1b',
      4,
      [
        { F: 2, BI: 1.5, BW: 1.5 },
        { F: 1, BI: 2, BW: 1 },
      ],
      2,
    );
    const guess = stagedDesign(
      'guess',
      '1f1b',
      4,
      [
        { F: 1, BI: 1, BW: 1 },
        { F: 1, BI: 2, BW: 1 },
      ],
      2,
    );
    const [a, b] = blocksOf(calibrated(truth, guess).design);
    expect([a!.F, a!.BI, a!.BW]).toEqual([2, 1.5, 1.5]);
    expect([b!.F, b!.BI, b!.BW]).toEqual([1, 2, 1]);
  });

  it("fits DualPipeV's F&B overlap factor from the measured pairs instead of assuming it", () => {
    const stage = { F: 0.5, BI: 0.5, BW: 0.5, FandB: 1.2 };
    const truth = stagedDesign('truth', 'dualpipev', 10, Array(8).fill(stage), 4);
    const guess = stagedDesign('guess', 'dualpipev', 10, Array(8).fill({ F: 0.5, BI: 0.5, BW: 0.5 }), 4);
    const r = calibrated(truth, guess);
    expect(r.fits.overlapFactor!.ms).toBeCloseTo(1.2 / 1.5, 9);
    for (const b of blocksOf(r.design)) expect(b.FandB).toBeCloseTo(1.2, 9);
    expect(Math.abs(r.after.stepErrorPct)).toBeLessThan(1e-6);
  });

  it('fits an op measured only inside pairs from the pairs, once the overlap factor is known', () => {
    // 1F1B over two ranks of two blocks each with the backward split: both blocks' weight
    // gradients run in one slot, an overlapped pair; two F&B pairs (schedule edits) give the factor.
    const stages = [
      { F: 2, BI: 1.5, BW: 1.5 },
      { F: 3, BI: 2, BW: 1.5 },
      { F: 1.5, BI: 1, BW: 0.75 },
      { F: 1, BI: 1.25, BW: 0.75 },
    ].map((s) => ({ ...s, FandB: 0.75 * (s.F + s.BI + s.BW) }));
    const make = (name: string, costs: typeof stages) => {
      const d = stagedDesign(name, '1f1b', 8, costs, 2) as Design & { directives: unknown[] };
      d.directives = [
        {
          op: 'schedule',
          builder: '1f1b',
          microbatches: 8,
          edits: [
            { kind: 'overlap', op: { PP: 0, MB: 4, PASS: 'F' } },
            { kind: 'overlap', op: { PP: 1, MB: 5, PASS: 'F' } },
          ],
        },
        { op: 'split_backward', filter: {} },
      ];
      return d as Design;
    };
    const r = calibrated(make('truth', stages), make('guess', Array(4).fill(nominal)));
    expect(r.fits.overlapFactor!.ms).toBeCloseTo(0.75, 9);
    expect(blocksOf(r.design).map((b) => b.BW)).toEqual(stages.map((s) => s.BW));
    expect(Math.abs(r.after.stepErrorPct)).toBeLessThan(1e-6);
  });

  it('lists the spans the plan does not have and the instructions nobody measured', () => {
    const design = stagedDesign('d', '1f1b', 2, [nominal, nominal], 2);
    const events = [
      { name: 'F.b0.mb0', ph: 'X', ts: 0, dur: 1000, pid: 'CPU functions', tid: 1 },
      { name: 'F.b0.mb7', ph: 'X', ts: 1000, dur: 1000, pid: 'CPU functions', tid: 1 },
    ];
    const read = readTrace(JSON.stringify(events), 'rank0.json');
    if (!read.ok) throw new Error('does not read');
    const r = calibrate(design, read.step, { files: ['rank0.json'], sources: read.step.sources });
    if (!r.ok) throw new Error('refused');
    expect(r.match.unmatched).toEqual([{ device: 0, id: 'F.b0.mb7' }]);
    expect(r.match.missing.map((m) => m.id)).toContain('B.b0.mb1');
    expect(r.unmeasured).toEqual(['stage 1']);
  });

  it('refuses a trace of devices the design does not have, and one that names no instruction', () => {
    const design = stagedDesign('d', '1f1b', 2, [nominal, nominal], 2);
    const far = readTrace(
      JSON.stringify([{ name: 'F.b0.mb0', ph: 'X', ts: 0, dur: 1, pid: 'x', tid: 1 }]),
      'rank9.json',
    );
    if (!far.ok) throw new Error('does not read');
    expect(calibrate(design, far.step, { files: [], sources: [] })).toEqual({
      ok: false,
      errors: [
        {
          path: '',
          message: "the trace measures device 9, which the design's plan does not have (devices 0–1)",
        },
      ],
    });
    const none = readTrace(
      JSON.stringify([{ name: 'F.x', ph: 'X', ts: 0, dur: 1, pid: 'x', tid: 1 }]),
      'rank0.json',
    );
    if (!none.ok) throw new Error('does not read');
    const r = calibrate(design, none.step, { files: [], sources: [] });
    expect(r.ok).toBe(false);
  });

  it('refuses a trace of another design that shares a few ids with the plan, with both counts', () => {
    const design = stagedDesign('d', '1f1b', 2, [nominal, nominal], 2);
    // Two ids of this plan and three it does not have (stage 7 of a longer pipeline).
    const events = ['F.b0.mb0', 'F.b0.mb1', 'F.b7.mb0', 'F.b7.mb1', 'B.b7.mb0'].map((name, i) => ({
      name,
      ph: 'X',
      ts: i * 10,
      dur: 5,
      pid: 'CPU functions',
      tid: 1,
    }));
    const read = readTrace(JSON.stringify(events), 'rank0.json');
    if (!read.ok) throw new Error('does not read');
    const r = calibrate(design, read.step, { files: [], sources: [] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]!.message).toMatch(
      /^the trace does not cover the design's plan: 3 of its 5 spans \(first step\) name no instruction of the plan, and \d+ of the plan's \d+ instructions on the measured devices have no span/,
    );
  });

  it('blames a duration of 1e308 µs on the trace, at its event', () => {
    const read = readTrace(
      JSON.stringify([{ name: 'F.b0.mb0', ph: 'X', ts: 0, dur: 1e308, pid: 'CPU functions', tid: 1 }]),
      'rank0.json',
    );
    expect(read).toEqual({
      ok: false,
      errors: [
        {
          path: '[0].dur',
          message:
            '1e+308 µs is over a day: the trace\'s duration is wrong, no op runs that long (event "F.b0.mb0")',
        },
      ],
    });
  });
});

describe('collectives in a measured step', () => {
  it('fit the bus bandwidth and fixed time of the gradient all-reduce from its measured spans', () => {
    const blocks = [1, 4, 16].flatMap((mb, i) =>
      [0, 1].map((stage) => ({
        name: `s${stage} b${i}`,
        tags: { PP: stage },
        F: 1,
        BI: 1,
        BW: 1,
        paramBytes: mb * 1e6,
      })),
    );
    blocks.sort((a, b) => a.tags.PP - b.tags.PP);
    const design = {
      format: 'stagecraft/design@2',
      name: 'pp2 dp2',
      model: { kind: 'synthetic', blocks },
      cluster: {
        kind: 'custom',
        nodes: 1,
        gpusPerNode: 4,
        gpu: { peakTflops: 100, memoryGiB: 80 },
        intraNode: { bandwidthGBps: 100, latencyUs: 5 },
        interNode: { bandwidthGBps: 10, latencyUs: 10 },
      },
      directives: [
        {
          op: 'schedule',
          builder: '1f1b',
          ranks: 2,
          microbatches: 4,
          groups: [
            [0, 1],
            [2, 3],
          ],
        },
        { op: 'replicate', filter: { PP: 0 }, devices: [0, 1], reduce_stream: 'dp' },
        { op: 'replicate', filter: { PP: 1 }, devices: [2, 3], reduce_stream: 'dp' },
      ],
    } as unknown as Design;
    const r = calibrated(design, design);
    const fit = r.fits.collectives?.ALL_REDUCE;
    expect(fit?.separable).toBe(true);
    // A ring all-reduce over 2 GPUs: 2(n−1)/n · bytes / 100 GB/s + 2(n−1) · 5 µs, the link shared
    // now and then with the pipeline's own transfers.
    expect(Math.abs(fit!.bandwidthGBps / 100 - 1)).toBeLessThan(0.03);
    expect(fit!.latencyUs).toBeGreaterThanOrEqual(0);
    expect(fit!.latencyUs).toBeLessThan(30);
  });
});
