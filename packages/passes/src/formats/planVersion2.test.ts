import type { Design, Instruction, Plan } from '@stagecraft/ir';
import { PLAN_FORMAT } from '@stagecraft/ir';
import { expect, test } from 'vitest';
import { compile } from '../compile/compile.ts';
import { loadPlan } from './loadPlan.ts';

/** PP2 × DP2 with ZeRO-2, two microbatches: every kind of instruction a runtime must place. */
const design: Design = {
  format: 'stagecraft/design@1',
  name: 'pp2-dp2-zero2',
  model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [
    { op: 'place', filter: { PP: 0 }, devices: [0, 2] },
    { op: 'place', filter: { PP: 1 }, devices: [1, 3] },
    { op: 'replicate', filter: { PP: 0 }, devices: [0, 2], shard_grads: true },
    { op: 'replicate', filter: { PP: 1 }, devices: [1, 3], shard_grads: true },
    { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
  ],
};

function compiled(): Plan {
  const r = compile(design);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return JSON.parse(JSON.stringify(r.plan)) as Plan;
}

function instructions(plan: Plan): Instruction[] {
  return plan.devices.flatMap((d) => d.streams.flatMap((s) => s.instructions));
}

test('a compiled plan is version 2 and says what every instruction works on without its id', () => {
  const plan = compiled();
  expect(plan.format).toBe(PLAN_FORMAT);
  expect(plan.model).toEqual({
    blocks: [
      { name: 'stage 0', tags: { PP: 0 }, inputs: [] },
      { name: 'stage 1', tags: { PP: 1 }, inputs: [0] },
    ],
    loss: 1,
  });
  expect(plan.batch).toEqual({
    dims: [{ name: 'MB', size: 2 }],
    microbatches: 2,
    microbatchSize: 1,
    replicas: 2,
    lossScale: 0.25,
  });
  for (const ins of instructions(plan)) {
    if (ins.op === 'F' || ins.op === 'B') {
      expect(ins.block).toBe(ins.tags.PP);
      expect(ins.microbatch).toBe(ins.tags.MB);
    }
    if (ins.op === 'SEND' || ins.op === 'RECV')
      expect(ins.tensor).toEqual({ block: ins.tags.PP, pass: ins.tags.PASS, microbatch: ins.tags.MB });
    if (ins.op === 'REDUCE_SCATTER' || ins.op === 'ALL_GATHER') expect(ins.params).toEqual([ins.tags.PP]);
  }
});

test('a version 1 plan, without the fields version 2 added, still loads', () => {
  const plan = compiled() as unknown as Record<string, unknown> & Plan;
  plan.format = 'stagecraft/plan@1' as Plan['format'];
  delete plan.model;
  delete plan.batch;
  for (const ins of instructions(plan) as unknown as Record<string, unknown>[]) {
    delete ins.block;
    delete ins.microbatch;
    delete ins.tensor;
    delete ins.params;
  }
  const loaded = loadPlan(JSON.stringify(plan));
  expect(loaded.ok).toBe(true);
});

const paramsOf = (i: Instruction): number[] | undefined => ('params' in i ? i.params : undefined);

test('a ZeRO-1 gather after UPD carries its bucket, not the DualPipe copies all-reduce that starts at the same block', () => {
  const dualPipe = {
    format: 'stagecraft/design@3',
    name: 'dualpipe-p2-dp2-zero1',
    model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1, FandB: 2.5 } },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [
      {
        op: 'schedule',
        builder: 'dualpipe',
        ranks: 2,
        microbatches: 4,
        groups: [
          { axes: ['dp'], shape: [2], start: 0 },
          { axes: ['dp'], shape: [2], start: 2 },
        ],
      },
      { op: 'replicate', filter: {}, axis: 'dp', reduce_stream: 'dp', shard_optimizer: true },
    ],
  } as unknown as Design;
  const r = compile(dualPipe);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  const plan = JSON.parse(JSON.stringify(r.plan)) as Plan;
  const all = instructions(plan);
  expect(
    all.some(
      (i) => i.op === 'ALL_REDUCE' && i.id.startsWith('ALL_REDUCE.copies') && paramsOf(i)?.length === 2,
    ),
  ).toBe(true);
  const gathers = all.filter((i) => i.op === 'ALL_GATHER');
  expect(gathers.length).toBeGreaterThan(0);
  for (const g of gathers) {
    const scatter = all.find(
      (i) => i.op === 'REDUCE_SCATTER' && i.id === g.id.replace('ALL_GATHER.params', 'REDUCE_SCATTER.grads'),
    );
    expect(scatter && paramsOf(scatter), g.id).toEqual(paramsOf(g));
    expect(paramsOf(g)).toHaveLength(1);
  }
});
