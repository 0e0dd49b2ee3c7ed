import type { Design, Instruction, Plan } from '@stagecraft/ir';
import { validatePlan } from '@stagecraft/ir';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { compile } from './compile/compile.ts';

function dualPipeV(p: number, m: number): Plan {
  const design: Design = {
    format: 'stagecraft/design@1',
    name: 'dualpipev',
    model: { kind: 'synthetic', stages: 2 * p, costs: { F: 1, BI: 1, BW: 1, FandB: 2.5 } },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder: 'dualpipev', microbatches: m, ranks: p }],
  };
  const r = compile(design);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return JSON.parse(JSON.stringify(r.plan)) as Plan;
}

function overlaps(plan: Plan): { d: number; k: number; ins: Extract<Instruction, { op: 'OVERLAP' }> }[] {
  const out: { d: number; k: number; ins: Extract<Instruction, { op: 'OVERLAP' }> }[] = [];
  plan.devices.forEach((dev, d) => {
    dev.streams[0]?.instructions.forEach((ins, k) => {
      if (ins.op === 'OVERLAP') out.push({ d, k, ins });
    });
  });
  return out;
}

test('compiled DualPipeV plans overlap only independent work, and pass validation as files', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 0, max: 3 }), (p, extra) => {
      const plan = dualPipeV(p, 2 * (p + extra));
      expect(overlaps(plan).length).toBeGreaterThan(0);
      expect(validatePlan(plan)).toEqual([]);
    }),
    { numRuns: 8 },
  );
});

test('an OVERLAP edited so its backward needs its forward is refused, naming both members', () => {
  const plan = dualPipeV(2, 4);
  const { d, k, ins } = overlaps(plan)[0]!;
  const f = ins.members.findIndex((m) => m.op === 'F');
  const b = ins.members.findIndex((m) => m.op !== 'F');
  // The backward now works on the forward's microbatch: it needs that forward's result.
  ins.members[b]!.microbatch = ins.members[f]!.microbatch;
  const issues = validatePlan(plan);
  expect(issues).toContainEqual({
    path: `devices[${d}].streams[0].instructions[${k}].members[${b}]`,
    message: `${ins.members[b]!.id} needs ${ins.members[f]!.id}, which the same OVERLAP ${ins.id} runs at once: members of an OVERLAP must be independent`,
  });
});
