import { describe, expect, it } from 'vitest';
import { runExample } from '../../test/simulatedExamples.ts';
import { flowsOf } from './flows.ts';
import { layoutGantt } from './layout.ts';
import { findOps } from './opSearch.ts';
import { indexPlan } from './planIndex.ts';
import { readRange } from './rangeReading.ts';

describe('reading the timeline: ranges, search, flows and folded lanes', () => {
  it('a range over the whole step reads the simulated bubble ratio', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const r = readRange(layoutGantt(sim, plan), plan, sim.makespanMs, 0);
    expect(r.durationMs).toBeCloseTo(sim.makespanMs, 9);
    expect(r.devices).toBe(4);
    expect(r.bubbleRatio).toBeCloseTo(sim.bubbleRatio, 9);
  });

  it('the first forward reads as the warm-up bubble, and ranges split the step’s idle time', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan);
    // Over [0, F] ranks 1..3 wait for their first forward: 3 of 4 devices idle.
    const warmUp = readRange(layout, plan, 0, 1);
    expect(warmUp.idleMs).toBeCloseTo(3, 9);
    expect(warmUp.bubbleRatio).toBeCloseTo(0.75, 9);
    const total = sim.devices.reduce((t, d) => t + d.idleMs, 0);
    const cut = 13.5;
    expect(
      readRange(layout, plan, 0, cut).idleMs + readRange(layout, plan, cut, sim.makespanMs).idleMs,
    ).toBeCloseTo(total, 9);
  });

  it('search lands on the exact id alone, else on every op containing the text, earliest first', () => {
    const { sim } = runExample('1f1b-p4-m8');
    const timeline = sim.timeline!;
    expect(findOps(timeline, 'F.b2.mb3').map((h) => h.id)).toEqual(['F.b2.mb3']);
    const partial = findOps(timeline, 'b3.MB0');
    const containing = timeline.filter((e) => e.id.toLowerCase().includes('b3.mb0'));
    expect(partial).toHaveLength(containing.length);
    expect(partial.length).toBeGreaterThan(1);
    expect(partial[0]!.event.startMs).toBe(Math.min(...containing.map((e) => e.startMs)));
    for (let i = 1; i < partial.length; i++)
      expect(partial[i]!.event.startMs).toBeGreaterThanOrEqual(partial[i - 1]!.event.startMs);
    expect(findOps(timeline, 'nothing-like-this')).toEqual([]);
    expect(findOps(timeline, '   ')).toEqual([]);
  });

  it('a selected SEND flows to its RECV, and a forward shows the transfers into and out of it', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const layout = layoutGantt(sim, plan);
    const index = indexPlan(plan);
    const [send, recv] = [...index.transfers].find(
      ([s]) => layout.ops[layout.byId.get(s)!]!.ev.device === 1,
    )!;
    expect(flowsOf(layout, index, send).map(([a, b]) => [a.ev.id, b.ev.id])).toEqual([[send, recv]]);
    expect(flowsOf(layout, index, recv).map(([a, b]) => [a.ev.id, b.ev.id])).toEqual([[send, recv]]);
    // Stage 1's forward of microbatch 0 receives from stage 0 and sends on to stage 2.
    const f = flowsOf(layout, index, 'F.b1.mb0');
    expect(f).toHaveLength(2);
    expect(f.map(([a, b]) => [a.ev.device, b.ev.device]).sort()).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(flowsOf(layout, index, null)).toEqual([]);
  });

  it('folding p2p and memory keeps every op but shortens the bands', () => {
    const { sim, plan } = runExample('1f1b-p4-m8');
    const open = layoutGantt(sim, plan);
    const folded = layoutGantt(sim, plan, { collapsedStreams: new Set(['p2p']), memoryCollapsed: true });
    expect(folded.ops.length).toBe(open.ops.length);
    expect(folded.height).toBeLessThan(open.height);
    for (const lane of folded.lanes) expect(lane.collapsed).toBe(lane.stream === 'p2p');
    for (const band of folded.bands) expect(band.memoryHeight).toBe(0);
    // Every p2p op still lies inside its thin strip.
    for (const o of folded.ops) {
      const lane = folded.lanes[o.lane]!;
      expect(o.y + o.h).toBeLessThanOrEqual(lane.top + lane.height + 1e-9);
    }
  });
});
