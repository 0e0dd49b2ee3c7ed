import { type Instruction, type Plan, planOpCount } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { manualTwoStage, synthetic } from '../../test/designs.ts';
import { compile } from './compile.ts';

const computeOrder = (plan: Plan, device: number): string[] =>
  plan.devices[device]!.streams.find((s) => s.stream === 'compute')!.instructions.map(
    (i: Instruction) => i.id,
  );

const errorsOf = (r: ReturnType<typeof compile>) =>
  r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);

describe('compile', () => {
  it('runs a hand-written 1F1B order on two ranks in exactly that order', () => {
    const r = compile(
      synthetic(manualTwoStage(2, ['F0.0', 'F0.1', 'B0.0', 'B0.1'], ['F1.0', 'B1.0', 'F1.1', 'B1.1'])),
    );
    expect(errorsOf(r)).toEqual([]);
    if (!r.ok) return;
    expect(computeOrder(r.plan, 0)).toEqual(['F.b0.mb0', 'F.b0.mb1', 'B.b0.mb0', 'B.b0.mb1', 'UPD.d0']);
    expect(computeOrder(r.plan, 1)).toEqual(['F.b1.mb0', 'B.b1.mb0', 'F.b1.mb1', 'B.b1.mb1', 'UPD.d1']);
  });

  it('turns every cross-device edge into a SEND on the producer and a RECV on the consumer', () => {
    const r = compile(
      synthetic(manualTwoStage(2, ['F0.0', 'F0.1', 'B0.0', 'B0.1'], ['F1.0', 'B1.0', 'F1.1', 'B1.1'])),
    );
    if (!r.ok) throw new Error(errorsOf(r).join('\n'));
    const p2p = (d: number) =>
      r.plan.devices[d]!.streams.find((s) => s.stream === 'p2p')!.instructions.map((i) => i.id);
    expect(p2p(0)).toEqual(['SEND.F.b0.mb0.d1', 'SEND.F.b0.mb1.d1', 'RECV.B.b1.mb0.d0', 'RECV.B.b1.mb1.d0']);
    expect(p2p(1)).toEqual(['RECV.F.b0.mb0.d1', 'RECV.F.b0.mb1.d1', 'SEND.B.b1.mb0.d0', 'SEND.B.b1.mb1.d0']);
    const f1 = r.plan.devices[1]!.streams[0]!.instructions[0]!;
    expect(f1.waits).toEqual(['RECV.F.b0.mb0.d1']);
  });

  it("splits a backward named as BI and BW in an order (Piper's rule)", () => {
    const r = compile(synthetic(manualTwoStage(1, ['F0.0', 'BI0.0', 'BW0.0'], ['F1.0', 'BI1.0', 'BW1.0'])));
    if (!r.ok) throw new Error(errorsOf(r).join('\n'));
    expect(computeOrder(r.plan, 1)).toEqual(['F.b1.mb0', 'BI.b1.mb0', 'BW.b1.mb0', 'UPD.d1']);
  });

  it('keeps the DAG after every pass, sharing what a pass did not change', () => {
    const r = compile(
      synthetic(manualTwoStage(2, ['F0.0', 'F0.1', 'B0.0', 'B0.1'], ['F1.0', 'B1.0', 'F1.1', 'B1.1'])),
    );
    if (!r.ok) throw new Error('compile failed');
    const names = r.snapshots.map((s) => s.pass);
    expect(names).toEqual([
      'expand-schedule',
      'build-dag',
      'check-supported',
      'split',
      'split-backward',
      'place',
      'insert-send-recv',
      'streams',
      'insert-optimizer-step',
      'replicate',
      'shard',
      'shard-tensor',
      'shard-sequence',
      'reduce-copies',
      'recompute',
      'offload',
      'order',
      'partition',
      'stream-order',
      'lower-plan',
      'validate-plan',
    ]);
    const split = r.snapshots.find((s) => s.pass === 'split')!.dag!;
    const place = r.snapshots.find((s) => s.pass === 'place')!.dag!;
    expect(split.nodes).toHaveLength(8);
    expect(place.nodes[0]!.group).toBe(0);
    expect(split.nodes[0]!.group).toBe(-1);
    expect(place.nodes[0]!.provenance).toEqual({ pass: 'place', directive: 1 });
  });

  it("counts the plan's ops, each member of an overlapped unit once", () => {
    const r = compile(
      synthetic([{ op: 'schedule', builder: 'dualpipev', microbatches: 10 }], { stages: 8, devices: 4 }),
    );
    if (!r.ok) throw new Error(errorsOf(r).join('\n'));
    expect(r.ops).toBe(planOpCount(r.plan));
    expect(
      r.plan.devices.some((d) => d.streams.some((s) => s.instructions.some((i) => i.op === 'OVERLAP'))),
    ).toBe(true);
  });

  it('runs everything on device 0 when nothing is placed', () => {
    const r = compile(synthetic([{ op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 }]));
    if (!r.ok) throw new Error(errorsOf(r).join('\n'));
    expect(r.plan.devices[0]!.streams).toHaveLength(1);
    expect(r.plan.devices[1]!.streams).toHaveLength(0);
  });
});

describe('compile errors name the directive and the reason', () => {
  it('a filter naming a tag no block has', () => {
    const r = compile(synthetic([{ op: 'place', filter: { XX: 0 }, devices: [0] }]));
    expect(errorsOf(r)[0]).toMatch(/^directives\[0\]\.filter\.XX: no block has tag XX/);
  });

  it('a tag value no block has', () => {
    const r = compile(synthetic([{ op: 'place', filter: { PP: 9 }, devices: [0] }]));
    expect(errorsOf(r)[0]).toBe('directives[0].filter.PP: no block has tag PP=9 (PP takes 0, 1)');
  });

  it('a device outside the cluster', () => {
    const r = compile(synthetic([{ op: 'place', filter: { PP: 0 }, devices: [5] }]));
    expect(errorsOf(r)[0]).toBe('directives[0].devices[0]: device 5 is outside the cluster (devices 0..1)');
  });

  it('an order that contradicts the data dependencies forms a cycle', () => {
    const r = compile(
      synthetic(manualTwoStage(2, ['F0.1', 'B0.1', 'F0.0', 'B0.0'], ['F1.0', 'B1.0', 'F1.1', 'B1.1'])),
    );
    const [e] = errorsOf(r);
    expect(e).toMatch(
      /^directives\[\d\]\.filters\[\d\]: the order forms a cycle with the data dependencies: /,
    );
    expect(e).toContain('→');
  });

  it('an order spanning device groups', () => {
    const r = compile(synthetic(manualTwoStage(1, ['F0.0', 'F1.0'], ['B1.0', 'B0.0'])));
    expect(errorsOf(r)[0]).toMatch(
      /^directives\[3\]\.filters\[1\]\[0\]: matches F\.b1\.mb0 on devices \[1\], but this order runs on devices \[0\]/,
    );
  });

  it('a design over the op limit names the limit and its size', () => {
    const r = compile(synthetic([{ op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 100_000 }]), {
      maxOps: 1000,
    });
    expect(errorsOf(r)[0]).toMatch(
      /^directives\[0\]\.num_microbatches: the design would have about [\d,]+ ops, over the limit of 1,000$/,
    );
  });

  it('a schedule over the op limit is refused with an estimate no smaller than what it would build', () => {
    const schedule = (microbatches: number) =>
      synthetic([{ op: 'schedule', builder: '1f1b', microbatches }], { stages: 4, devices: 4 });
    const built = compile(schedule(8));
    if (!built.ok) throw new Error(errorsOf(built).join('\n'));
    const r = compile(schedule(8), { maxOps: built.ops - 1 });
    const [e] = errorsOf(r);
    expect(e).toMatch(
      /^directives\[0\]\.microbatches: the design would have about [\d,]+ ops, over the limit of /,
    );
    expect(Number(e!.match(/about ([\d,]+)/)![1]!.replaceAll(',', ''))).toBeGreaterThanOrEqual(built.ops);
  });

  it('groups that partly overlap', () => {
    const r = compile(
      synthetic(
        [
          { op: 'place', filter: { PP: 0 }, devices: [0, 1] },
          { op: 'place', filter: { PP: 1 }, devices: [1, 2] },
        ],
        { devices: 4 },
      ),
    );
    expect(errorsOf(r)[0]).toMatch(
      /^directives\[1\]\.devices: devices \[1, 2\] partly overlap the group \[0, 1\]/,
    );
  });
});
