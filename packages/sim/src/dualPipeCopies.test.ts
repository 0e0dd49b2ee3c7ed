import { type CollectiveInstruction, DESIGN_FORMAT, type Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { allReduceMs, resolveCluster } from './costModel.ts';
import { simulate } from './simulate.ts';

// DeepSeek's DualPipe (github.com/deepseek-ai/DualPipe): two copies of the model run in opposite
// directions, rank r holding stage r of one and stage p−1−r of the other (parameters 2×); each
// stage's two copies must sum their gradients before the optimizer step. DualPipeV keeps one copy.
const GIB = 1024 ** 3;

function design(builder: 'dualpipe' | 'dualpipev', p: number): Design {
  const stages = builder === 'dualpipe' ? p : 2 * p;
  return {
    format: DESIGN_FORMAT,
    name: builder,
    model: { kind: 'synthetic', stages, costs: { F: 1, BI: 1, BW: 1 }, paramBytes: GIB },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [{ op: 'schedule', builder, ranks: p, microbatches: 2 * p }],
  };
}

function compiled(d: Design) {
  const c = compile(d, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return c.plan;
}

describe("DualPipe's two model copies", () => {
  it('all-reduce their gradients between ranks r and p−1−r before the optimizer step', () => {
    const p = 4;
    const plan = compiled(design('dualpipe', p));
    for (let r = 0; r < p; r++) {
      const compute = plan.devices[r]!.streams.find((s) => s.stream === 'compute')!.instructions;
      const reduce = compute.filter((i) => i.op === 'ALL_REDUCE') as CollectiveInstruction[];
      expect(reduce).toHaveLength(1);
      // Both stages rank r holds (its down-stage r and its up-stage p−1−r), 1 GiB of gradients each.
      expect([...reduce[0]!.devices].sort()).toEqual([r, p - 1 - r].sort());
      expect(reduce[0]!.bytes).toBe(2 * GIB);
      const at = compute.indexOf(reduce[0]!);
      // After every backward, right before UPD: the two copies step from the same gradient.
      expect(compute.slice(at + 1).map((i) => i.op)).toEqual(['UPD']);
      expect(compute.slice(0, at).some((i) => i.op === 'B' || i.op === 'BW' || i.op === 'OVERLAP')).toBe(
        true,
      );
    }
  });

  it('costs the all-reduce of 2 GiB between two GPUs of a node and adds it to the step', () => {
    const plan = compiled(design('dualpipe', 4));
    const s = simulate(plan);
    if (!s.ok) throw new Error(s.errors.map((e) => e.message).join('\n'));
    const cost = resolveCluster(plan.cluster);
    if (!cost.ok || cost.cost.kind !== 'custom') throw new Error('a real cluster');
    const expected = allReduceMs(2, 2 * GIB, cost.cost.intraNode);
    const events = s.sim.timeline!.filter((e) => e.op === 'ALL_REDUCE');
    expect(events).toHaveLength(4);
    for (const e of events) expect(e.endMs - e.startMs).toBeCloseTo(expected, 6);
    const upd = s.sim.timeline!.filter((e) => e.op === 'UPD');
    for (const u of upd)
      expect(u.startMs).toBeGreaterThanOrEqual(Math.min(...events.map((e) => e.endMs)) - 1e-9);
  });

  it('leaves DualPipeV, whose ranks hold one copy of each stage, without it', () => {
    const plan = compiled(design('dualpipev', 4));
    const ops = plan.devices.flatMap((d) => d.streams.flatMap((s) => s.instructions.map((i) => i.op)));
    expect(ops).not.toContain('ALL_REDUCE');
  });
});
