import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesign, run, runExample } from '../../test/simulatedExamples.ts';
import { moveOp } from './reorder.ts';
import { expandSchedule } from './schedule.ts';

const computeOrder = (r: ReturnType<typeof run>, device: number) =>
  r.plan.devices
    .find((d) => d.device === device)!
    .streams.find((s) => s.stream === 'compute')!
    .instructions.map((i) => i.id);

describe('moveOp', () => {
  it('moves a forward before another on the same device as an edit of the schedule, which stays one directive', () => {
    const r = runExample('1f1b-p4-m8');
    const moved = moveOp(r.design, r.compiled, { op: 'F.b0.mb1', target: 'F.b0.mb0', position: 'before' });
    if (!moved.ok) throw new Error(moved.reason);
    expect(moved.design.directives).toEqual([
      {
        ...r.design.directives[0],
        edits: [{ kind: 'move', op: { PP: 0, MB: 1, PASS: 'F' }, before: { PP: 0, MB: 0, PASS: 'F' } }],
      },
    ]);
    const after = run(moved.design);
    expect(computeOrder(after, 0).slice(0, 3)).toEqual(['F.b0.mb1', 'F.b0.mb0', 'F.b0.mb2']);
    // The other devices keep their order.
    expect(computeOrder(after, 1)).toEqual(computeOrder(r, 1));
  });

  it('runs a move kept on the schedule exactly as the same move on the expanded program', () => {
    const r = runExample('1f1b-p4-m8');
    const move = { op: 'F.b3.mb1', target: 'F.b3.mb0', position: 'before' } as const;
    const compact = moveOp(r.design, r.compiled, move);
    const expanded = expandSchedule(r.design, 0, r.compiled.program);
    if (!compact.ok || !expanded.ok) throw new Error('the move and the expansion apply');
    const byHand = moveOp(expanded.design, run(expanded.design).compiled, move);
    if (!byHand.ok) throw new Error(byHand.reason);
    expect(byHand.design.directives).toHaveLength(9);
    const a = run(compact.design);
    const b = run(byHand.design);
    expect(JSON.stringify(a.plan)).toBe(JSON.stringify(b.plan));
    expect(a.sim.makespanMs).toBe(b.sim.makespanMs);
  });

  it('after a split backward drop, moves the BW half alone, named as such in the schedule’s edit', () => {
    const base = exampleDesign('1f1b-p4-m8');
    const design: Design = {
      ...base,
      directives: [...base.directives, { op: 'split_backward', filter: { PP: 1 } }],
    };
    const r = run(design);
    const moved = moveOp(design, r.compiled, { op: 'BW.b1.mb0', target: 'F.b1.mb3', position: 'after' });
    if (!moved.ok) throw new Error(moved.reason);
    expect(moved.design.directives.map((d) => d.op)).toEqual(['schedule', 'split_backward']);
    expect(moved.design.directives[0]).toMatchObject({
      edits: [{ kind: 'move', op: { PP: 1, MB: 0, PASS: 'BW' }, after: { PP: 1, MB: 3, PASS: 'F' } }],
    });
    const order = computeOrder(run(moved.design), 1);
    expect(order.indexOf('BW.b1.mb0')).toBe(order.indexOf('F.b1.mb3') + 1);
    expect(order.indexOf('BI.b1.mb0')).toBeLessThan(order.indexOf('F.b1.mb3'));
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
