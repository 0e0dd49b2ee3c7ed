import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../../test/repoFiles.ts';
import { measuredTrace, stagedDesign } from '../../test/measuredDesigns.ts';
import { mergeTraces, readTrace, stepTimesMs } from '../index.ts';

const traces = {
  legacy: await readFixture('measured/rank1.json'),
  kineto: await readFixture('measured/kineto-rank1.json'),
};
const fixture = (name: 'rank1.json' | 'kineto-rank1.json') =>
  name === 'rank1.json' ? traces.legacy : traces.kineto;

describe('reading measured traces', () => {
  it("reads torch 1.13's legacy profiler export, taking the rank from the file name", () => {
    const r = readTrace(fixture('rank1.json'), 'traces/rank1.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step.sources).toEqual(['legacy-profiler']);
    expect(r.step.alignedClocks).toBe(false);
    expect(r.step.devices.map((d) => d.device)).toEqual([1]);
    // Only the record_function ranges named by instruction ids, not the aten ops inside them.
    expect(r.step.devices[0]!.spans.map((s) => s.id)).toEqual([
      'F.b1.mb0',
      'B.b1.mb0',
      'F.b1.mb1',
      'B.b1.mb1',
      'UPD.d1',
    ]);
    for (const s of r.step.devices[0]!.spans) expect(s.endMs).toBeGreaterThan(s.startMs);
  });

  it('refuses a legacy trace whose file name does not give its rank, saying how to name it', () => {
    const r = readTrace(fixture('rank1.json'), 'trace.json');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]!.message).toContain('name the file by it (rank3.json');
    expect(readTrace(fixture('rank1.json'), 'trace.json', { rank: 5 }).ok).toBe(true);
  });

  it("reads Kineto's JSON, the rank from distributedInfo and each op's time from its GPU-side range", () => {
    const r = readTrace(fixture('kineto-rank1.json'), 'worker.pt.trace.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step.sources).toEqual(['kineto']);
    expect(r.step.alignedClocks).toBe(true);
    const [d] = r.step.devices;
    expect(d!.device).toBe(1);
    expect(d!.spans.map((s) => [s.id, s.endMs - s.startMs])).toEqual([
      ['F.b1.mb0', 1],
      ['B.b1.mb0', 2],
    ]);
  });

  it("reads Stagecraft's own Chrome trace: one process per device, ids in args, a RECV from its post", () => {
    const design = stagedDesign(
      'two stages',
      '1f1b',
      2,
      [
        { F: 1, BI: 1, BW: 1 },
        { F: 1, BI: 1, BW: 1 },
      ],
      2,
      0.5,
    );
    const r = readTrace(measuredTrace(design), 'measured.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step.devices.map((d) => d.device)).toEqual([0, 1]);
    const recv = r.step.devices[1]!.spans.find((s) => s.id === 'RECV.F.b0.mb0.d1')!;
    // Posted at the start of the step; the data arrives after F (1 ms) and the transfer (0.5 ms).
    expect(recv.startMs).toBe(0);
    expect(recv.endMs).toBeCloseTo(1.5, 9);
    expect(stepTimesMs(r.step)).toHaveLength(1);
  });

  it('names the event and the field of a malformed span', () => {
    const bad = JSON.stringify([
      { name: 'aten::mm', ph: 'X', ts: 1, dur: 'x', pid: 'CPU functions', tid: 1 },
      { name: 'F.b0.mb0', ph: 'X', ts: 1, dur: '3', pid: 'CPU functions', tid: 1 },
    ]);
    const r = readTrace(bad, 'rank0.json');
    expect(r).toEqual({
      ok: false,
      errors: [{ path: '[1].dur', message: 'expected a duration ≥ 0 in microseconds (event "F.b0.mb0")' }],
    });
    expect(readTrace('{"traceEvents": 3}', 'a.json')).toMatchObject({
      ok: false,
      errors: [{ path: 'traceEvents' }],
    });
    expect(readTrace('not json', 'a.json')).toMatchObject({ ok: false, errors: [{ path: '' }] });
  });

  it('refuses two files that measure the same rank', () => {
    const a = readTrace(fixture('rank1.json'), 'rank1.json');
    const b = readTrace(fixture('kineto-rank1.json'), 'kineto.json');
    if (!a.ok || !b.ok) throw new Error('fixtures do not read');
    const merged = mergeTraces([
      { file: 'rank1.json', step: a.step },
      { file: 'kineto.json', step: b.step },
    ]);
    expect(merged).toEqual({
      ok: false,
      errors: [
        {
          path: 'kineto.json',
          message: "device 1 is also measured in rank1.json: give each rank's trace once",
        },
      ],
    });
  });

  it('numbers repeated runs of an id as steps and times each step', () => {
    const events = [0, 10, 20].flatMap((t) => [
      { name: 'F.b0.mb0', ph: 'X', ts: t * 1000, dur: 2000, pid: 'CPU functions', tid: 1 },
      { name: 'B.b0.mb0', ph: 'X', ts: t * 1000 + 3000, dur: 4000, pid: 'CPU functions', tid: 1 },
    ]);
    const r = readTrace(JSON.stringify(events), 'rank0.json');
    if (!r.ok) throw new Error('does not read');
    expect(r.step.devices[0]!.spans.map((s) => s.step)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(stepTimesMs(r.step)).toEqual([7, 7, 7]);
  });
});
