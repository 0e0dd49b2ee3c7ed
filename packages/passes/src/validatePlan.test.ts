import type { Design, Instruction, Plan } from '@stagecraft/ir';
import { IssueList, layoutFromObjects, provesLayout, validatePlan } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from './compile/compile.ts';

function design(builder: string, p: number, m: number, extra: Partial<Record<string, unknown>> = {}): Design {
  const chunks =
    builder === 'interleaved-1f1b' ? 2 : builder.startsWith('dualpipe') || builder === 'zbv' ? 2 : 1;
  return {
    format: 'stagecraft/design@1',
    name: 'test',
    model: { kind: 'synthetic', stages: p * chunks, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 1 },
    cluster: { kind: 'ideal', devices: extra.groups ? p * 2 : p },
    directives: [
      {
        op: 'schedule',
        builder,
        microbatches: m,
        ...(extra.groups ? {} : { ranks: p }),
        ...extra,
      } as Design['directives'][number],
    ],
  };
}

function compiled(d: Design): Plan {
  const r = compile(d);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.plan;
}

const PLANS: [string, Plan][] = [
  ['1F1B', compiled(design('1f1b', 3, 4))],
  ['interleaved 1F1B', compiled(design('interleaved-1f1b', 2, 4))],
  ['DualPipeV', compiled(design('dualpipev', 3, 6))],
  [
    'ZB-H1 on groups of two devices',
    compiled(
      design('zb-h1', 2, 4, {
        groups: [
          [0, 1],
          [2, 3],
        ],
      }),
    ),
  ],
];

/** A deep copy a test may break. */
const copy = (p: Plan): Plan => JSON.parse(JSON.stringify(p)) as Plan;

type Edit = (p: Plan, a: number, b: number) => void;

const streamsOf = (p: Plan) => p.devices.flatMap((d) => d.streams).filter((s) => s.instructions.length > 0);
const pick = <T>(xs: T[], a: number): T => xs[a % xs.length]!;

const EDITS: Record<string, Edit> = {
  'swap two instructions of a stream': (p, a, b) => {
    const s = pick(streamsOf(p), a);
    const i = a % s.instructions.length;
    const j = b % s.instructions.length;
    [s.instructions[i], s.instructions[j]] = [s.instructions[j]!, s.instructions[i]!];
  },
  'drop an instruction': (p, a, b) => {
    const s = pick(streamsOf(p), a);
    s.instructions.splice(b % s.instructions.length, 1);
  },
  'wait for another instruction of the device': (p, a, b) => {
    const d = pick(
      p.devices.filter((x) => x.streams.length > 0),
      a,
    );
    const all: Instruction[] = d.streams.flatMap((s) => s.instructions);
    pick(all, a).waits = [pick(all, b).id];
  },
  'rename a transfer': (p, a) => {
    const p2p = streamsOf(p)
      .flatMap((s) => s.instructions)
      .filter((i) => i.op === 'SEND' || i.op === 'RECV');
    const x = pick(p2p, a);
    if (x.op === 'SEND' || x.op === 'RECV') x.transfer = `${x.transfer}.x`;
  },
  'reuse an id': (p, a, b) => {
    const s = pick(streamsOf(p), a);
    pick(s.instructions, a).id = pick(s.instructions, b + 1).id;
  },
};

describe('validatePlan', () => {
  it.each(PLANS)('accepts the compiled %s plan with every check on', (_, plan) => {
    expect(validatePlan(plan)).toEqual([]);
    expect(validatePlan(copy(plan))).toEqual([]);
  });

  it('names every problem the simulator finds in a broken plan with the same text, and accepts only what it proves', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PLANS.map(([, p]) => p)),
        fc.array(fc.tuple(fc.constantFrom(...Object.keys(EDITS)), fc.nat(1000), fc.nat(1000)), {
          minLength: 1,
          maxLength: 3,
        }),
        (plan, edits) => {
          const broken = copy(plan);
          for (const [name, a, b] of edits) EDITS[name]!(broken, a, b);
          // What the simulator's setup reads of the plan: its layout, and the issues building it finds.
          const setup = new IssueList(1000);
          const layout = layoutFromObjects(broken, setup);
          const issues = validatePlan(broken, { maxIssues: 1000 });
          for (const i of setup.list) expect(issues).toContainEqual(i);
          if (issues.length === 0) expect(layout !== undefined && provesLayout(layout)).toBe(true);
          else expect(issues).toEqual(validatePlan(copy(broken), { maxIssues: 1000 }));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reports a stream order that deadlocks as the wait cycle', () => {
    const broken = copy(PLANS[0]![1]);
    const compute = broken.devices[1]!.streams.find((s) => s.stream === 'compute')!.instructions;
    compute.reverse();
    const issues = validatePlan(broken);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/^deadlock: device 1 .* waits for .*; and around again$/);
  });
});
