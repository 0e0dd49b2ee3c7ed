import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesign, run, runExample } from '../../test/simulatedExamples.ts';
import { moveOp } from './reorder.ts';

const computeOrder = (r: ReturnType<typeof run>, device: number) =>
  r.plan.devices
    .find((d) => d.device === device)!
    .streams.find((s) => s.stream === 'compute')!
    .instructions.map((i) => i.id);

describe('moveOp', () => {
  it('moves a forward before another on the same device, replacing the schedule by its editable expansion', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b0.mb1', target: 'F.b0.mb0', position: 'before' });
    expect(moved.ok).toBe(true);
    if (!moved.ok) return;
    const ops = moved.design.directives.map((d) => d.op);
    expect(ops).toEqual(['split', 'place', 'place', 'place', 'place', 'order', 'order', 'order', 'order']);
    const after = run(moved.design);
    expect(computeOrder(after, 0).slice(0, 3)).toEqual(['F.b0.mb1', 'F.b0.mb0', 'F.b0.mb2']);
    // The other devices keep their order.
    expect(computeOrder(after, 1)).toEqual(computeOrder(r, 1));
  });

  it('moves an op after another and edits a hand-written order in place', () => {
    const r = runExample('manual-order-p2-m4');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b1.mb1', target: 'B.b1.mb1', position: 'after' });
    expect(moved.ok).toBe(false);
    const ok = moveOp(r.design, r.compiled, { op: 'F.b0.mb3', target: 'F.b0.mb1', position: 'after' });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(ok.design.directives.length).toBe(r.design.directives.length);
    expect(computeOrder(run(ok.design), 0).slice(0, 4)).toEqual([
      'F.b0.mb0',
      'F.b0.mb1',
      'F.b0.mb3',
      'B.b0.mb0',
    ]);
  });

  it('refuses a backward moved before its own forward, naming which must come first', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'B.b0.mb0', target: 'F.b0.mb0', position: 'before' });
    expect(moved).toEqual({
      ok: false,
      reason: expect.stringContaining('B.b0.mb0 must come after F.b0.mb0'),
    });
  });

  it('refuses a move that breaks a dependency through another device, showing the chain', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'B.b0.mb1', target: 'F.b0.mb3', position: 'before' });
    expect(moved.ok).toBe(false);
    if (moved.ok) return;
    expect(moved.reason).toContain('B.b0.mb1 must come after F.b0.mb3');
    expect(moved.reason).toContain('F.b1.mb3 (device 1)');
  });

  it('refuses an op moved after one that needs it', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b2.mb1', target: 'B.b2.mb1', position: 'after' });
    expect(moved).toEqual({
      ok: false,
      reason: expect.stringContaining('F.b2.mb1 must come before B.b2.mb1'),
    });
  });

  it('leaves the design as it is when the op already sits there', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b0.mb0', target: 'F.b0.mb1', position: 'before' });
    expect(moved).toEqual({ ok: true, design: r.design });
    if (moved.ok) expect(moved.design).toBe(r.design);
  });

  it('refuses a move across devices', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b0.mb0', target: 'F.b1.mb0', position: 'after' });
    expect(moved).toEqual({
      ok: false,
      reason:
        "F.b0.mb0 runs on device 0 and F.b1.mb0 on device 1: an op only moves within its own device's order",
    });
  });

  it('refuses moving communication, which the compiler places', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, {
      op: 'SEND.F.b0.mb0.d1',
      target: 'F.b0.mb2',
      position: 'after',
    });
    expect(moved.ok).toBe(false);
    if (!moved.ok) expect(moved.reason).toMatch(/^SEND\.F\.b0\.mb0\.d1 is a SEND/);
  });

  it('starts an order for a device that has none, from the order the compiler chose', () => {
    const base = exampleDesign('manual-order-p2-m4');
    const design: Design = { ...base, directives: base.directives.filter((d) => d.op !== 'order') };
    const r = run(design);
    const before = computeOrder(r, 1);
    const moved = moveOp(design, r.compiled, { op: 'F.b1.mb1', target: 'F.b1.mb0', position: 'before' });
    expect(moved.ok).toBe(true);
    if (!moved.ok) return;
    expect(moved.design.directives.at(-1)?.op).toBe('order');
    const after = computeOrder(run(moved.design), 1);
    expect(after.slice(0, 2)).toEqual(['F.b1.mb1', 'F.b1.mb0']);
    expect([...after].sort()).toEqual([...before].sort());
  });

  it('moves an overlapped DualPipeV pair as one unit', () => {
    const r = runExample('dualpipev-p4-m10');
    const unit = r.plan.devices[0]!.streams[0]!.instructions.find((i) => i.op === 'OVERLAP');
    expect(unit).toBeDefined();
    if (unit?.op !== 'OVERLAP') return;
    const member = unit.members[0]!.id;
    const moved = moveOp(r.design, r.compiled, { op: member, target: unit.id, position: 'before' });
    expect(moved).toEqual({ ok: false, reason: `${member} and ${unit.id} run in the same slot, overlapped` });
  });
});
