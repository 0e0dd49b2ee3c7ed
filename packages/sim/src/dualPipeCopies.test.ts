import { type CollectiveInstruction, DESIGN_FORMAT, type Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { collectiveMs, resolveCluster } from './costModel.ts';
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

/**
 * DualPipe on 2 ranks whose groups are data parallel over 2 devices each (a dp2 mesh, or a flat
 * group of 2), gradients all-reduced or ZeRO-sharded, as runtime/tests/designs/dualpipe-p2-dp2-zero1.json.
 */
function dataParallelDesign(
  mesh: boolean,
  shard: 'none' | 'shard_optimizer' | 'shard_grads' = 'shard_optimizer',
): Design {
  const groups = mesh
    ? [
        { axes: ['dp'], shape: [2], start: 0 },
        { axes: ['dp'], shape: [2], start: 2 },
      ]
    : [
        [0, 1],
        [2, 3],
      ];
  const replicate = mesh
    ? [{ op: 'replicate', filter: {}, axis: 'dp', reduce_stream: 'dp' }]
    : [
        { op: 'replicate', filter: {}, devices: [0, 1], reduce_stream: 'dp' },
        { op: 'replicate', filter: {}, devices: [2, 3], reduce_stream: 'dp' },
      ];
  return {
    format: DESIGN_FORMAT,
    name: 'dualpipe on dp2 groups',
    model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 }, paramBytes: GIB },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [
      { op: 'schedule', builder: 'dualpipe', ranks: 2, microbatches: 4, groups },
      ...replicate.map((r) => (shard === 'none' ? r : { ...r, [shard]: true })),
    ],
  } as Design;
}

function instructionsOf(plan: ReturnType<typeof compiled>, device: number) {
  return plan.devices.find((d) => d.device === device)!.streams.flatMap((s) => s.instructions);
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
    // Two GPUs of a DGX H100 node: NCCL's NVLink SHARP all-reduce (25 µs, 480 GB/s busBw).
    const expected = collectiveMs(cost.cost, 'ALL_REDUCE', [0, 1], 2 * GIB);
    expect(expected).toBeCloseTo(0.025 + (2 * GIB) / 480e6, 9);
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

  for (const mesh of [true, false])
    it(`pair member r of one ${mesh ? 'dp2 mesh' : 'flat group of 2'} with member r of the other, never the replicas`, () => {
      const plan = compiled(dataParallelDesign(mesh));
      const label = (r: number) => (mesh ? `dp=${r}` : `rank=${r}`);
      for (const [device, pair, r] of [
        [0, [0, 2], 0],
        [1, [1, 3], 1],
        [2, [0, 2], 0],
        [3, [1, 3], 1],
      ] as const) {
        const copies = instructionsOf(plan, device).filter(
          (i) => i.op === 'ALL_REDUCE' && i.id.startsWith('ALL_REDUCE.copies'),
        ) as CollectiveInstruction[];
        expect(copies).toHaveLength(1);
        expect(copies[0]!.devices).toEqual(pair);
        expect(copies[0]!.collective).toBe(`ALL_REDUCE.copies.d0-d2[${label(r)}]`);
      }
    });

  for (const shard of ['none', 'shard_optimizer'] as const)
    it(`sum the copies before the replicas' gradient ${shard === 'none' ? 'all-reduce' : 'reduce-scatter (ZeRO-1)'}`, () => {
      const plan = compiled(dataParallelDesign(true, shard));
      for (const device of [0, 1, 2, 3]) {
        const all = instructionsOf(plan, device);
        const copies = all.find((i) => i.id.startsWith('ALL_REDUCE.copies'))!;
        const gradients = all.filter(
          (i) => (i.op === 'REDUCE_SCATTER' || i.op === 'ALL_REDUCE') && i !== copies && 'params' in i,
        );
        expect(gradients.length).toBeGreaterThan(0);
        for (const g of gradients) expect(g.waits).toContain(copies.id);
      }
    });

  it('costs each pair as a 2-GPU all-reduce of the copies', () => {
    const plan = compiled(dataParallelDesign(true));
    const s = simulate(plan);
    if (!s.ok) throw new Error(s.errors.map((e) => e.message).join('\n'));
    const cost = resolveCluster(plan.cluster);
    if (!cost.ok || cost.cost.kind !== 'custom') throw new Error('a real cluster');
    const events = s.sim.timeline!.filter(
      (e) => e.op === 'ALL_REDUCE' && e.id.startsWith('ALL_REDUCE.copies'),
    );
    expect(events).toHaveLength(4);
    // Both stages on every device, 1 GiB of gradients each: 2 GiB between 2 GPUs, not 4.
    const expected = collectiveMs(cost.cost, 'ALL_REDUCE', [0, 1], 2 * GIB);
    expect(expected).not.toBeCloseTo(collectiveMs(cost.cost, 'ALL_REDUCE', [0, 1, 2, 3], 2 * GIB), 3);
    for (const e of events) expect(e.endMs - e.startMs).toBeCloseTo(expected, 6);
  });

  for (const field of ['shard_grads'] as const)
    it(`refuses ${field} on data-parallel copies, naming the directive`, () => {
      const c = compile(dataParallelDesign(true, field), { keepSnapshots: false });
      expect(c.ok).toBe(false);
      if (c.ok) return;
      expect(c.errors[0]!.path).toBe(`directives[1].${field}`);
      expect(c.errors[0]!.message).toMatch(/DualPipe copy on devices \[0, 1\].*shard_optimizer/);
    });
});
