import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { computeDesign } from './computeDesign.ts';
import { dropItem } from './palette.ts';

describe('recomputing after an edit', () => {
  test('reusing the last compile gives the same step as compiling afresh', () => {
    const design = example('1f1b-p4-m8');
    const first = computeDesign(design, new Set());
    if (!first.result.ok) throw new Error('the example compiles');
    const edit = dropItem(
      design,
      'split_backward',
      { id: 'B.b2.mb0', tags: { PP: 2, MB: 0, PASS: 'B' } },
      first.result.program,
    );
    if (!edit.ok) throw new Error(edit.error);
    const reused = computeDesign(edit.design, new Set(), { previous: first.incremental! });
    const fresh = computeDesign(edit.design, new Set());
    if (!reused.result.ok || !fresh.result.ok) throw new Error('the edit compiles');
    expect(reused.result.simulation.makespanMs).toBe(fresh.result.simulation.makespanMs);
    expect(reused.result.simulation.bubbleRatio).toBe(fresh.result.simulation.bubbleRatio);
    expect(reused.result.ops).toBe(fresh.result.ops);
  });

  test('a design that does not parse reports paths into the document', () => {
    const { result } = computeDesign(
      { format: 'stagecraft/design@1', name: 'x', model: {}, cluster: {}, directives: [] },
      new Set(),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toContain('model.kind');
  });

  test('an invalid directive is an error at its path, not an exception', () => {
    const design = example('1f1b-p4-m8');
    const { result } = computeDesign(
      { ...design, directives: [...design.directives, { op: 'recompute', filter: { PP: 7 } }] },
      new Set(),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]!.path).toMatch(/^directives\[1\]/);
  });
});
