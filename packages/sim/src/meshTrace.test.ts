import type { Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { expect, it } from 'vitest';
import { allReduceMs, chromeTrace, resolveCluster, simulate } from './index.ts';

const design: Design = {
  format: 'stagecraft/design@3',
  name: 'pp2 × dp2 × tp2',
  model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 8 },
  directives: [
    {
      op: 'schedule',
      builder: '1f1b',
      microbatches: 2,
      groups: [
        { axes: ['dp', 'tp'], shape: [2, 2] },
        { axes: ['dp', 'tp'], shape: [2, 2], start: 4 },
      ],
    },
    { op: 'replicate', filter: {}, axis: 'dp' },
  ],
};

it('the Chrome trace labels each device with its stage and mesh coordinates', () => {
  const c = compile(design);
  if (!c.ok) throw new Error(JSON.stringify(c.errors));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(JSON.stringify(s.errors));
  const names = chromeTrace(c.plan, s.sim)
    .traceEvents.filter((e) => e.name === 'process_name')
    .map((e) => (e.args as { name: string }).name);
  expect(names).toEqual([
    'device 0 · stage 0 · dp 0 · tp 0',
    'device 1 · stage 0 · dp 0 · tp 1',
    'device 2 · stage 0 · dp 1 · tp 0',
    'device 3 · stage 0 · dp 1 · tp 1',
    'device 4 · stage 1 · dp 0 · tp 0',
    'device 5 · stage 1 · dp 0 · tp 1',
    'device 6 · stage 1 · dp 1 · tp 0',
    'device 7 · stage 1 · dp 1 · tp 1',
  ]);
});

it('times a tensor-parallel all-reduce on NVLink and a data-parallel one across nodes, as their members sit', () => {
  const cluster = {
    kind: 'custom' as const,
    nodes: 2,
    gpusPerNode: 4,
    gpu: { peakTflops: 100, memoryGiB: 80 },
    intraNode: { bandwidthGBps: 400, latencyUs: 1 },
    interNode: { bandwidthGBps: 50, latencyUs: 5 },
  };
  // One stage on a dp2 × tp4 mesh: tp sub-groups are the two nodes, dp sub-groups pair them.
  const blocks = [0, 1].map((b) => ({
    name: `layer ${b}`,
    tags: { PP: 0, TP: 0 },
    F: 1,
    BI: 1,
    BW: 1,
    activationBytes: 1e6,
    paramBytes: 8e8,
    outputBytes: 4e7,
  }));
  const c = compile({
    format: 'stagecraft/design@3',
    name: 'dp2 × tp4',
    model: { kind: 'synthetic', blocks },
    cluster,
    directives: [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
      { op: 'place', filter: {}, mesh: { axes: ['dp', 'tp'], shape: [2, 4] } },
      { op: 'shard_tensor', filter: { TP: '*' }, axis: 'tp', stream: 'tp' },
      { op: 'replicate', filter: {}, axis: 'dp', reduce_stream: 'dp' },
    ],
  });
  if (!c.ok) throw new Error(JSON.stringify(c.errors));
  const s = simulate(c.plan);
  if (!s.ok) throw new Error(JSON.stringify(s.errors));
  const cost = resolveCluster(cluster);
  if (!cost.ok || cost.cost.kind !== 'custom') throw new Error('a custom cluster');
  const { intraNode, interNode } = cost.cost;
  const on5 = (s.sim.timeline ?? []).filter((e) => e.device === 5);
  const tp = on5.find((e) => e.id === 'ALL_REDUCE.tp.F.b0.mb0')!;
  const dp = on5.find((e) => e.id.startsWith('ALL_REDUCE.grads'))!;
  const ins = c.plan.devices[5]!.streams.flatMap((x) => x.instructions);
  expect(ins.find((i) => i.id === tp.id)).toMatchObject({
    devices: [4, 5, 6, 7],
    collective: `${tp.id}[dp=1]`,
  });
  expect(ins.find((i) => i.id === dp.id)).toMatchObject({ devices: [1, 5], collective: `${dp.id}[tp=1]` });
  expect(tp.endMs - tp.startMs).toBeCloseTo(allReduceMs(4, tp.bytes!, intraNode), 9);
  // Each dp sub-group has one member per node: the NIC's 50 GB/s bounds it, not NVLink.
  expect(dp.endMs - dp.startMs).toBeCloseTo(allReduceMs(2, dp.bytes!, interNode), 9);
  // Each member holds 1/4 of each layer: the data-parallel all-reduce carries that share.
  expect(dp.bytes).toBe(2e8);
});
