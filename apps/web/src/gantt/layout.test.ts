import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { idleSpans, layoutGantt } from './layout.ts';

describe('timeline layout', () => {
  it('gives each device a band with a lane per stream of its plan', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan);
    expect(layout.bands.map((b) => b.device)).toEqual([0, 1, 2, 3]);
    for (const band of layout.bands) {
      const streams = plan.devices.find((d) => d.device === band.device)!.streams.map((s) => s.stream);
      expect(band.lanes.map((l) => l.stream)).toEqual(streams);
    }
    expect(layout.ops.length).toBe(sim.timeline!.length);
    // Lanes do not overlap and every op lies inside its lane.
    for (const o of layout.ops) {
      const lane = layout.lanes[o.lane]!;
      expect(o.y).toBeGreaterThanOrEqual(lane.top);
      expect(o.y + o.h).toBeLessThanOrEqual(lane.top + lane.height + 1e-9);
      expect(lane.device).toBe(o.ev.device);
      expect(lane.stream).toBe(o.ev.stream);
    }
  });

  it('finds the 1F1B bubbles: rank r idles r·F before its first forward and r·B after its last backward', () => {
    const { sim } = runExample('1f1b-p4-m8');
    const spans = idleSpans(sim);
    const p = 4;
    const F = 1;
    const B = 2;
    for (let r = 0; r < p; r++) {
      const mine = spans.filter((s) => s.device === r);
      const total = mine.reduce((t, s) => t + (s.endMs - s.startMs), 0);
      // (p−1)(F+B) of idle per rank, as the simulator counts it.
      expect(total).toBeCloseTo((p - 1) * (F + B), 9);
      expect(total).toBeCloseTo(sim.devices[r]!.idleMs, 9);
      if (r > 0) {
        expect(mine[0]).toEqual({ device: r, startMs: 0, endMs: r * F });
        expect(mine.at(-1)).toEqual({ device: r, startMs: sim.makespanMs - r * B, endMs: sim.makespanMs });
      }
    }
    expect(sim.makespanMs).toBe((8 + p - 1) * (F + B));
  });

  it('has no bubble left on ZB-H1 devices beyond what the simulator counts', () => {
    const { sim } = runExample('zb-h1-p4-m8');
    const spans = idleSpans(sim);
    for (const d of sim.devices) {
      const total = spans.filter((s) => s.device === d.device).reduce((t, s) => t + s.endMs - s.startMs, 0);
      expect(total).toBeCloseTo(d.idleMs, 9);
    }
  });

  it('draws the memory curve of every device with its capacity', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan, { memoryCapacityBytes: () => 80 * 2 ** 30 });
    for (const band of layout.bands) {
      expect(band.memory.length).toBeGreaterThan(0);
      expect(band.capacityBytes).toBe(80 * 2 ** 30);
      expect(band.memoryScaleBytes).toBeGreaterThanOrEqual(80 * 2 ** 30);
    }
  });
});
