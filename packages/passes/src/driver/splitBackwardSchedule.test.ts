import { describe, expect, it } from 'vitest';
import { compactDesign, expandedDesign, type SplitSchedule } from '../../../../test/splitBackwardDesigns.ts';
import { compiled, computeOrder, manualTwoStage, synthetic } from '../../test/designs.ts';
import { BUILDERS } from '../builders/index.ts';
import { compile } from '../compile/compile.ts';
import { compileIncremental } from '../compile/incremental.ts';

const cases: SplitSchedule[] = Object.values(BUILDERS).flatMap((b) =>
  [{ PP: 1 }, { PP: '*' as const }].flatMap((split) =>
    [1, 2].map((regionsPerStage) => ({ builder: b.name, chunks: b.defaultChunks, split, regionsPerStage })),
  ),
);
const label = (s: SplitSchedule) =>
  `${s.builder}, split_backward on ${JSON.stringify(s.split)}, ${s.regionsPerStage} PP region(s) per stage`;

describe('a schedule with split_backward compiles as the designer’s expansion of it', () => {
  it.each(cases.map((s) => [label(s), s] as const))('%s', (_, s) => {
    const compact = compiled(compactDesign(s));
    const expanded = compiled(expandedDesign(compactDesign(s), compact.program));
    expect(JSON.stringify(compact.plan)).toBe(JSON.stringify(expanded.plan));
  });

  it.each(['1f1b', 'dualpipev'] as const)(
    '%s: split_backward before the schedule in the program gives the plan it gives after',
    (builder) => {
      const s = { builder, chunks: BUILDERS[builder].defaultChunks, split: { PP: '*' as const } };
      const after = compiled(compactDesign(s));
      const before = compiled(compactDesign({ ...s, splitFirst: true }));
      // The split_backward's index in the program differs, so provenance does too: compare the runs.
      expect(before.plan.devices.map((_, d) => computeOrder(before.plan, d))).toEqual(
        after.plan.devices.map((_, d) => computeOrder(after.plan, d)),
      );
      const expanded = compiled(expandedDesign(compactDesign({ ...s, splitFirst: true }), before.program));
      expect(JSON.stringify(before.plan)).toBe(JSON.stringify(expanded.plan));
    },
  );
});

describe('an order slot naming a B that split_backward split', () => {
  it('runs BI in the B’s place and BW in the slot right after it', () => {
    const r = compiled(
      synthetic([
        ...manualTwoStage(2, ['F0.0', 'F0.1', 'B0.0', 'B0.1'], ['F1.0', 'B1.0', 'F1.1', 'B1.1']),
        { op: 'split_backward', filter: { PP: 1 } },
      ]),
    );
    expect(computeOrder(r.plan, 0)).toEqual(['F.b0.mb0', 'F.b0.mb1', 'B.b0.mb0', 'B.b0.mb1', 'UPD.d0']);
    expect(computeOrder(r.plan, 1)).toEqual([
      'F.b1.mb0',
      'BI.b1.mb0',
      'BW.b1.mb0',
      'F.b1.mb1',
      'BI.b1.mb1',
      'BW.b1.mb1',
      'UPD.d1',
    ]);
  });

  it('in an overlapped F&B slot overlaps BI with the forward, and runs BW alone after them', () => {
    const directives = manualTwoStage(2, ['F0.0', 'F0.1', 'B0.0', 'B0.1'], ['F1.0', 'B1.0', 'F1.1', 'B1.1']);
    const order = directives[4]!;
    if (order.op !== 'order') throw new Error('rank 1’s order');
    // Rank 1 runs B of microbatch 0 overlapped with F of microbatch 1, as DualPipe does.
    order.filters = [order.filters[0]!, [...order.filters[1]!, ...order.filters[2]!], order.filters[3]!];
    const r = compiled(synthetic([...directives, { op: 'split_backward', filter: { PP: '*' } }]));
    expect(computeOrder(r.plan, 1)).toEqual([
      'F.b1.mb0',
      '[BI.b1.mb0 & F.b1.mb1]',
      'BW.b1.mb0',
      'BI.b1.mb1',
      'BW.b1.mb1',
      'UPD.d1',
    ]);
  });

  it('is still refused when no split_backward split it, with the slot at fault', () => {
    const r = compile(
      synthetic(manualTwoStage(1, ['F0.0', 'B0.0'], ['F1.0', 'BI1.0', 'BW1.0', 'B1.0']).slice(0, 5)),
    );
    expect(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'directives[4].filters[3][0]: matches no op',
    ]);
  });

  it('compiles incrementally after split_backward is added to exactly what a fresh compile gives', () => {
    const s = { builder: '1f1b' as const, chunks: 1, split: { PP: 2 } };
    const design = compactDesign(s);
    const unsplit = { ...design, directives: design.directives.filter((d) => d.op === 'schedule') };
    const first = compileIncremental(unsplit, undefined, { keepSnapshots: false });
    if (!first.result.ok) throw new Error('the schedule alone compiles');
    const next = compileIncremental(design, first.state, { keepSnapshots: false });
    if (!next.result.ok) throw new Error(JSON.stringify(next.result.errors));
    expect(next.reused).toBeGreaterThan(0);
    expect(JSON.stringify(next.result.plan)).toBe(JSON.stringify(compiled(design).plan));
  });
});
