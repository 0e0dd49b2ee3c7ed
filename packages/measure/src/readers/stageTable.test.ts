import { describe, expect, it } from 'vitest';
import { stagedDesign } from '../../test/measuredDesigns.ts';
import { calibrateFromTable, readMeasurement } from '../index.ts';

const nominal = { F: 1, BI: 1, BW: 1 };
const origin = { files: ['stages.csv'], sources: ['stage-table'] };

function table(text: string) {
  const r = readMeasurement(text, 'stages.csv');
  if (!r.ok || r.kind !== 'table') throw new Error(JSON.stringify(r));
  return r.costs;
}

describe('a plain table of measured stage costs', () => {
  it('reads a CSV of per-stage F, BI and BW and predicts what the measured costs imply', () => {
    const costs = table('stage,F,BI,BW\n0,2,1.5,1\n1,3,2,0.5\n2,1.5,1,1.25\n');
    const guess = stagedDesign('guess', 'zb-h1', 6, [nominal, nominal, nominal], 3);
    const truth = stagedDesign('truth', 'zb-h1', 6, costs.stages as (typeof nominal)[], 3);
    const r = calibrateFromTable(guess, costs, origin);
    const t = calibrateFromTable(truth, costs, origin);
    if (!r.ok || !t.ok) throw new Error('refused');
    expect(r.predictedStepMs.after).toBeCloseTo(t.predictedStepMs.before, 9);
    expect(r.predictedStepMs.after).not.toBeCloseTo(r.predictedStepMs.before, 3);
  });

  it('reads the JSON form with a link and sets the transfer time of the median transfer', () => {
    const costs = table(
      JSON.stringify({
        format: 'stagecraft/measured-costs@1',
        stages: [
          { stage: 0, F: 2, B: 4 },
          { stage: 1, F: 2, B: 4 },
        ],
        p2p: { bandwidthGBps: 1, latencyUs: 100 },
      }),
    );
    const design = stagedDesign('d', '1f1b', 4, [nominal, nominal], 2);
    (design.model as { blocks: { outputBytes?: number }[] }).blocks.forEach((b) => {
      b.outputBytes = 1e6;
    });
    const r = calibrateFromTable(design, costs, origin);
    if (!r.ok) throw new Error('refused');
    // 100 µs + 1 MB at 1 GB/s = 1.1 ms per transfer.
    expect(r.design.cluster).toEqual({ kind: 'ideal', devices: 2, p2pLatencyMs: 1.1 });
  });

  it('names the row and column of a bad cell, an unknown column, a stage given twice', () => {
    expect(readMeasurement('stage,F,BI,BW\n0,1,x,1\n', 'a.csv')).toEqual({
      ok: false,
      errors: [{ path: 'row 2, column 3', message: 'expected milliseconds ≥ 0, got "x"' }],
    });
    expect(readMeasurement('stage,F,Bwd\n0,1,1\n', 'a.csv')).toMatchObject({
      ok: false,
      errors: [{ path: 'row 1, column 3' }],
    });
    expect(readMeasurement('stage,F\n0,1\n0,2\n', 'a.csv')).toMatchObject({
      ok: false,
      errors: [{ path: 'row 3, column "stage"', message: 'stage 0 is given twice' }],
    });
  });

  it('refuses a stage the design does not have', () => {
    const design = stagedDesign('d', '1f1b', 4, [nominal, nominal], 2);
    const r = calibrateFromTable(design, table('stage,F\n0,1\n5,1\n'), origin);
    expect(r).toEqual({
      ok: false,
      errors: [
        { path: 'stages[1].stage', message: 'the design has no pipeline stage 5 (no block is tagged PP=5)' },
      ],
    });
  });
});
