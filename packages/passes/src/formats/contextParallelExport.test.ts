import type { Design, Plan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compile } from '../compile/compile.ts';
import { loadPlan } from './loadPlan.ts';
import { exportPiperProgram } from './piperProgram.ts';
import { exportTorchCsv } from './torchExport.ts';

/** Two stages of two blocks, each stage's sequence split over its two devices. */
const design: Design = {
  format: 'stagecraft/design@1',
  name: 'pp2-cp2',
  model: {
    kind: 'synthetic',
    blocks: [0, 1, 2, 3].map((k) => ({
      tags: { PP: k >> 1 },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 100,
      paramBytes: 100,
      outputBytes: 10,
    })),
  },
  cluster: { kind: 'ideal', devices: 4 },
  directives: [
    {
      op: 'schedule',
      builder: '1f1b',
      microbatches: 2,
      groups: [
        [0, 1],
        [2, 3],
      ],
    },
    { op: 'shard_sequence', filter: {}, devices: [0, 1], form: 'all_gather' },
    { op: 'shard_sequence', filter: {}, devices: [2, 3] },
  ],
};

function compiled() {
  const r = compile(design);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

describe('exports of a context-parallel design', () => {
  it('the plan says which blocks each group splits and how, and loads back as it was written', () => {
    const { plan } = compiled();
    expect(plan.contextParallel).toEqual([
      { devices: [0, 1], blocks: [0, 1], form: 'all_gather' },
      { devices: [2, 3], blocks: [2, 3], form: 'ring' },
    ]);
    const text = JSON.stringify(plan);
    const back = loadPlan(text);
    if (!back.ok) throw new Error(back.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
    expect(JSON.parse(JSON.stringify(back.plan))).toEqual(JSON.parse(text) as Plan);
    const kv = back.plan.devices[0]!.streams.find((s) => s.stream === 'cp')!.instructions;
    expect(kv.map((i) => i.op)).toContain('ALL_GATHER');
    expect(kv.map((i) => i.op)).toContain('REDUCE_SCATTER');
  });

  it('a plan whose contextParallel names an unknown form is refused at that field', () => {
    const plan = JSON.parse(JSON.stringify(compiled().plan)) as { contextParallel: { form: string }[] };
    plan.contextParallel[0]!.form = 'ulysses';
    const r = loadPlan(JSON.stringify(plan));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.path).toBe('contextParallel[0].form');
  });

  it('Piper and torch.distributed.pipelining refuse it, naming the directive and why', () => {
    const r = compiled();
    const piper = exportPiperProgram(design, r.program, r.plan, r.dag);
    expect(piper.ok).toBe(false);
    if (!piper.ok) {
      expect(piper.errors[0]!.path).toBe('directives[1]');
      expect(piper.errors[0]!.message).toMatch(/^shard_sequence \(context parallelism\) has no Piper op/);
    }
    const torch = exportTorchCsv(r.plan, r.program);
    expect(torch.ok).toBe(false);
    if (!torch.ok) {
      expect(torch.errors[0]!.path).toBe('directives[1]');
      expect(torch.errors[0]!.message).toMatch(/pure pipeline: context parallelism \(shard_sequence\)/);
    }
  });
});
