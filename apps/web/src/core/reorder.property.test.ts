import type { Design, Filter } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { run, runExample } from '../../test/simulatedExamples.ts';
import { moveOp } from './reorder.ts';

const compute = (r: ReturnType<typeof run>, device: number) =>
  r.plan.devices
    .find((d) => d.device === device)!
    .streams.find((s) => s.stream === 'compute')!
    .instructions.filter((i) => i.op !== 'UPD')
    .map((i) => i.id);

describe('moveOp on random moves', () => {
  const base = runExample('zb-h1-p4-m8');

  it('either refuses with a reason or yields a design whose device runs the op right beside its target', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('before' as const, 'after' as const),
        (device, i, j, position) => {
          const ids = compute(base, device);
          const op = ids[i % ids.length]!;
          const target = ids[j % ids.length]!;
          const moved = moveOp(base.design, base.compiled, { op, target, position });
          if (!moved.ok) {
            expect(moved.reason.length).toBeGreaterThan(10);
            // No false refusal: the same order written out by hand does not run either.
            if (op !== target) expect(runs(forced(base, device, op, target, position))).toBe(false);
            return;
          }
          const after = run(moved.design);
          const order = compute(after, device);
          expect([...order].sort()).toEqual([...ids].sort());
          const k = order.indexOf(target);
          expect(order[position === 'before' ? k - 1 : k + 1]).toBe(op);
          // The other devices keep their own order.
          for (let d = 0; d < 4; d++) if (d !== device) expect(compute(after, d)).toEqual(compute(base, d));
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** The design with every device's order written out from the plan, `op` moved beside `target`. */
function forced(
  r: ReturnType<typeof run>,
  device: number,
  op: string,
  target: string,
  position: 'before' | 'after',
): Design {
  const rest = r.compiled.program.map((e) => e.directive).filter((d) => d.op !== 'order');
  const orders = r.plan.devices.map((d) => {
    const stream = d.streams.find((s) => s.stream === 'compute')!;
    let ids = stream.instructions.filter((i) => i.op !== 'UPD').map((i) => i.id);
    if (d.device === device) {
      ids = ids.filter((id) => id !== op);
      const k = ids.indexOf(target) + (position === 'after' ? 1 : 0);
      ids.splice(k, 0, op);
    }
    const tags = new Map(stream.instructions.map((i) => [i.id, i.tags as Filter]));
    return { op: 'order' as const, filters: ids.map((id) => [tags.get(id)!]) };
  });
  return { ...r.design, directives: [...rest, ...orders] };
}

function runs(design: Design): boolean {
  const c = compile(design, { keepSnapshots: false });
  return c.ok && simulate(c.plan, { keepTimeline: false }).ok;
}
