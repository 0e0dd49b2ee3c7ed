/**
 * The published closed forms of reference/schedules.md, reproduced end to end: design → compile →
 * simulate on the ideal cluster with a synthetic model of uniform costs.
 */
import type { Design, ScheduleBuilderName } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { simulate } from './index.ts';

const ACT = 1024;

function run(builder: ScheduleBuilderName, p: number, m: number, v = 1, c = { F: 1, BI: 1, BW: 1 }) {
  const design: Design = {
    format: 'stagecraft/design@1',
    name: `${builder} p${p} m${m}`,
    model: {
      kind: 'synthetic',
      stages: p * v,
      // Times per full stage: each of the v chunks costs 1/v of it.
      costs: { F: c.F / v, BI: c.BI / v, BW: c.BW / v },
      activationBytes: ACT / v,
    },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder, microbatches: m, ...(v > 1 ? { chunks: v } : {}) }],
  };
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  const s = simulate(r.plan);
  if (!s.ok) throw new Error(s.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return s.sim;
}

const F = 1;
const B = 2;
const cases: [number, number][] = [
  [2, 4],
  [4, 8],
  [4, 16],
  [8, 16],
];

describe('closed forms on the ideal cluster', () => {
  for (const [p, m] of cases) {
    it(`GPipe on ${p} ranks and ${m} microbatches takes (m+p−1)(F+B) and stashes m on rank 0`, () => {
      const s = run('gpipe', p, m);
      expect(s.makespanMs).toBeCloseTo((m + p - 1) * (F + B), 9);
      expect(s.devices[0]!.peakActivationBytes / ACT).toBeCloseTo(m, 9);
    });

    it(`1F1B on ${p} ranks and ${m} microbatches takes (m+p−1)(F+B), rank r stashes p−r`, () => {
      const s = run('1f1b', p, m);
      expect(s.makespanMs).toBeCloseTo((m + p - 1) * (F + B), 9);
      s.devices.forEach((d, r) => {
        expect(d.peakActivationBytes / ACT).toBeCloseTo(p - r, 9);
      });
      expect(s.bubbleRatio).toBeCloseTo((p - 1) / (m + p - 1), 9);
      expect(s.bubbleOverIdeal).toBeCloseTo((p - 1) / m, 9);
    });

    it(`ZB-H1 on ${p} ranks and ${m} microbatches takes m(F+B) + (p−1)(F+BI−BW) and stashes p`, () => {
      const s = run('zb-h1', p, m);
      expect(s.makespanMs).toBeCloseTo(m * (F + B) + (p - 1) * (F + 1 - 1), 9);
      expect(s.devices[0]!.peakActivationBytes / ACT).toBeCloseTo(p, 9);
    });

    it(`ZB-H2 on ${p} ranks and ${m} microbatches takes m(F+B) + (p−1)F with at most 2p−1 stashed`, () => {
      const s = run('zb-h2', p, m);
      expect(s.makespanMs).toBeCloseTo(m * (F + B) + (p - 1) * F, 9);
      for (const d of s.devices) expect(d.peakActivationBytes / ACT).toBeLessThanOrEqual(2 * p - 1 + 1e-9);
    });

    it(`ZB-V on ${p} ranks and ${m} microbatches takes m(F+B) + (p−1)F/2 and stashes p`, () => {
      const s = run('zbv', p, m, 2);
      expect(s.makespanMs).toBeCloseTo(m * (F + B) + ((p - 1) * F) / 2, 9);
      expect(s.devices[0]!.peakActivationBytes / ACT).toBeCloseTo(p, 9);
    });

    it(`interleaved 1F1B with v=2 on ${p} ranks and ${m} microbatches takes m(F+B) + (p−1)(F+B)/v and stashes p+(p−1)/v`, () => {
      const s = run('interleaved-1f1b', p, m, 2);
      expect(s.makespanMs).toBeCloseTo(m * (F + B) + ((p - 1) * (F + B)) / 2, 9);
      expect(s.devices[0]!.peakActivationBytes / ACT).toBeCloseTo(p + (p - 1) / 2, 9);
    });
  }

  it('interleaved 1F1B with v=4 on 4 ranks and 8 microbatches takes m(F+B) + (p−1)(F+B)/v', () => {
    const s = run('interleaved-1f1b', 4, 8, 4);
    expect(s.makespanMs).toBeCloseTo(8 * 3 + (3 * 3) / 4, 9);
  });
});
