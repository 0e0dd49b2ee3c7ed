import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { idleSpans, layoutGantt, memoryY, opsInWindow } from './layout.ts';

describe('timeline layout', () => {
  it('lists the ops of a window in start order, the first `limit` of them when asked', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan);
    const lane = layout.lanes.find((l) => l.compute)!;
    const all = opsInWindow(layout, lane, 0, sim.makespanMs);
    expect(all).toHaveLength(lane.ops.length);
    expect(opsInWindow(layout, lane, 0, sim.makespanMs, 3)).toEqual(all.slice(0, 3));
  });

  it('keeps a timeline that does not come by start time in start order per lane', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt({ ...sim, timeline: [...sim.timeline!].reverse() }, plan);
    for (const lane of layout.lanes)
      for (let k = 1; k < lane.ops.length; k++)
        expect(layout.ops[lane.ops[k]!]!.ev.startMs).toBeGreaterThanOrEqual(
          layout.ops[lane.ops[k - 1]!]!.ev.startMs,
        );
  });

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

  it('finds the same bubbles whatever order the timeline comes in', () => {
    const { sim } = runExample('zb-h1-p4-m8');
    const reversed = { ...sim, timeline: [...sim.timeline!].reverse() };
    expect(idleSpans(reversed)).toEqual(idleSpans(sim));
  });

  it('has no bubble left on ZB-H1 devices beyond what the simulator counts', () => {
    const { sim } = runExample('zb-h1-p4-m8');
    const spans = idleSpans(sim);
    for (const d of sim.devices) {
      const total = spans.filter((s) => s.device === d.device).reduce((t, s) => t + s.endMs - s.startMs, 0);
      expect(total).toBeCloseTo(d.idleMs, 9);
    }
  });

  it('draws the memory curve of every device from its static base, so the activations fill the strip', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan, { memoryCapacityBytes: () => 80 * 2 ** 30 });
    for (const band of layout.bands) {
      const d = sim.devices.find((x) => x.device === band.device)!;
      expect(band.memory.length).toBeGreaterThan(0);
      expect(band.capacityBytes).toBe(80 * 2 ** 30);
      expect(band.oom).toBe(false);
      // 8 GiB of static state under a 9 GiB peak: the strip spans the activations only.
      expect(band.memoryBaseBytes).toBe(d.staticBytes);
    }
    // One swing for every strip: stage 0 stashes four microbatches (fills the strip), stage 3 one.
    const swing = (device: number) => {
      const band = layout.bands.find((b) => b.device === device)!;
      return memoryY(band, band.memoryBaseBytes) - memoryY(band, band.peakBytes);
    };
    const full = layout.bands[0]!.memoryHeight - 6;
    expect(swing(0)).toBeGreaterThan(0.8 * full);
    expect(swing(3) / swing(0)).toBeCloseTo(1 / 4, 2);
  });

  it('draws compared timelines from 0 at the shared scale, and marks a device over its capacity', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const shared = layoutGantt(sim, plan, { memoryScaleBytes: 16 * 2 ** 30 });
    for (const band of shared.bands) expect(band.memoryBaseBytes).toBe(0);
    const tight = layoutGantt(sim, plan, { memoryCapacityBytes: () => 8.6 * 2 ** 30 });
    const over = tight.bands.filter((b) => b.oom).map((b) => b.device);
    expect(over).toEqual(sim.devices.filter((d) => d.peakMemoryBytes > 8.6 * 2 ** 30).map((d) => d.device));
    expect(over.length).toBeGreaterThan(0);
    // The crossed capacity lies inside the strip.
    const band = tight.bands.find((b) => b.oom)!;
    const y = memoryY(band, 8.6 * 2 ** 30);
    expect(y).toBeGreaterThan(band.memoryTop + 3);
    expect(y).toBeLessThan(band.memoryTop + band.memoryHeight - 3);
  });
});
