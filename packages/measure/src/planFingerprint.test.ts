import { type Design, planFingerprint } from '@stagecraft/ir';
import { runDesign } from '@stagecraft/workflow';
import { describe, expect, it } from 'vitest';
import { measuredTrace, stagedDesign } from '../test/measuredDesigns.ts';
import { calibrate, compareMeasured, mergeTraces, readTrace } from './index.ts';

const nominal = { F: 1, BI: 1, BW: 1 };

function planOf(d: Design) {
  const run = runDesign(d, { keepSnapshots: false });
  if (!run.ok) throw new Error('does not compile');
  return run.compiled.plan;
}

/** A trace of `measured` as the runtime writes it: the fingerprint of the plan it ran in otherData. */
function runtimeTrace(measured: Design, fingerprint = planFingerprint(planOf(measured))): string {
  const trace = JSON.parse(measuredTrace(measured));
  trace.otherData.planFingerprint = fingerprint;
  return JSON.stringify(trace);
}

describe("a plan's fingerprint", () => {
  it('stays with new costs and a new name, and changes with the microbatches, the schedule or the devices', () => {
    const base = stagedDesign('a', '1f1b', 4, [nominal, nominal], 2);
    const fp = planFingerprint(planOf(base));
    expect(fp).toMatch(/^plan:2d:\d+i:[0-9a-f]{8}$/);
    const slower = stagedDesign('renamed', '1f1b', 4, [nominal, { F: 3, BI: 2, BW: 5 }], 2);
    expect(planFingerprint(planOf(slower))).toBe(fp);
    for (const other of [
      stagedDesign('a', '1f1b', 8, [nominal, nominal], 2),
      stagedDesign('a', 'gpipe', 4, [nominal, nominal], 2),
      stagedDesign('a', '1f1b', 4, [nominal, nominal, nominal, nominal], 4),
    ])
      expect(planFingerprint(planOf(other))).not.toBe(fp);
  });
});

describe('a trace recording the plan it measured', () => {
  const measured = stagedDesign('m', '1f1b', 4, [nominal, nominal], 2);

  it('is read with its fingerprint and calibrates its own design', () => {
    const read = readTrace(runtimeTrace(measured), 'trace.json');
    if (!read.ok) throw new Error('does not read');
    expect(read.step.planFingerprint).toBe(planFingerprint(planOf(measured)));
    expect(calibrate(measured, read.step, { files: [], sources: [] }).ok).toBe(true);
  });

  it('is refused by a design of another plan, naming both plans, even where many ids are shared', () => {
    const read = readTrace(runtimeTrace(measured), 'trace.json');
    if (!read.ok) throw new Error('does not read');
    // m = 5 has every id of m = 4: only the fingerprint tells the plans apart.
    const other = stagedDesign('m', '1f1b', 5, [nominal, nominal], 2);
    for (const r of [
      calibrate(other, read.step, { files: [], sources: [] }),
      compareMeasured(other, read.step),
    ]) {
      expect(r.ok).toBe(false);
      expect(!r.ok && r.errors[0]).toEqual({
        path: 'otherData.planFingerprint',
        message: `the trace was measured from plan ${planFingerprint(planOf(measured))}, and this design compiles to plan ${planFingerprint(planOf(other))}: its schedule, microbatches, stages or devices differ; open the design the trace measured`,
      });
    }
  });

  it('refuses a fingerprint that is not a string, at its field', () => {
    const trace = JSON.parse(measuredTrace(measured));
    trace.otherData.planFingerprint = 42;
    const read = readTrace(JSON.stringify(trace), 'trace.json');
    expect(read.ok).toBe(false);
    expect(!read.ok && read.errors[0]!.path).toBe('otherData.planFingerprint');
  });

  it('refuses files of two different plans merged as one step', () => {
    const a = readTrace(runtimeTrace(measured), 'rank0.json');
    const b = readTrace(runtimeTrace(measured, 'plan:2d:10i:00000000'), 'rank1.json');
    if (!a.ok || !b.ok) throw new Error('does not read');
    const only = (step: typeof a.step, device: number) => ({
      ...step,
      devices: step.devices.filter((d) => d.device === device),
    });
    const merged = mergeTraces([
      { file: 'rank0.json', step: only(a.step, 0) },
      { file: 'rank1.json', step: only(b.step, 1) },
    ]);
    expect(merged.ok).toBe(false);
    expect(!merged.ok && merged.errors[0]!.message).toMatch(
      /^measured plan plan:2d:10i:00000000, but rank0\.json measured plan plan:2d:\d+i:[0-9a-f]{8}: give the traces of one run$/,
    );
  });
});
