import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { renameAction, setModelAction, updateDirectiveAction } from './actions.ts';
import { designProblems, fieldProblem } from './directiveCheck.ts';

describe('validation as the design schema does it', () => {
  const design = example('1f1b-p4-m8');
  const schedule = design.directives[0]!;

  test('microbatches 0 or -3 are refused with the schema’s message, 12 is taken', () => {
    expect(fieldProblem(schedule, 'microbatches', 0)).toBe('must be ≥ 1');
    expect(fieldProblem(schedule, 'microbatches', -3)).toBe('must be ≥ 1');
    expect(fieldProblem(schedule, 'microbatches', 12)).toBeUndefined();
  });

  test('a problem inside a field names where in it', () => {
    expect(fieldProblem(schedule, 'groups', [[0], [-1]])).toBe('groups[1][0]: must be ≥ 0');
  });

  test('an optional field left empty is no problem', () => {
    expect(fieldProblem(schedule, 'ranks', undefined)).toBeUndefined();
  });

  test('the update action refuses what the schema refuses, so no path puts it in the design', () => {
    const r = updateDirectiveAction.perform(design, {
      index: 0,
      directive: { op: 'schedule', builder: '1f1b', microbatches: 0 },
    });
    expect(r).toEqual({ ok: false, error: 'directives[0].microbatches: must be ≥ 1' });
  });

  test('a model and a name the schema refuses are refused too', () => {
    const model = { ...design.model, stages: 0 } as typeof design.model;
    expect(setModelAction.perform(design, { model }).ok).toBe(false);
    expect(renameAction.perform(design, { name: 'x'.repeat(201) }).ok).toBe(false);
    expect(designProblems(design)).toEqual([]);
  });
});
