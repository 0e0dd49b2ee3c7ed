import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { updateDirectiveAction } from './actions.ts';
import { computeDesign } from './computeDesign.ts';
import { causedErrors, directiveOfPath, filterAtPath, touchedDirective } from './errorCause.ts';
import { dropItem } from './palette.ts';
import { moveDirective } from './program.ts';

describe('errors at the directive the user edited', () => {
  const design = example('1f1b-p4-m8');
  const dropped = dropItem(
    design,
    'split_backward',
    { id: 'B.b1.mb0', tags: { PP: 1, MB: 0, PASS: 'B' } },
    computed(design).program,
  );
  if (!dropped.ok) throw new Error(dropped.error);
  const at = dropped.design.directives.length - 1;

  test('a split cut to fewer microbatches is blamed for the order that no longer matches', () => {
    const splitAt = dropped.design.directives.findIndex((d) => d.op === 'split');
    const split = dropped.design.directives[splitAt]!;
    const edit = updateDirectiveAction.perform(dropped.design, {
      index: splitAt,
      directive: { ...split, num_microbatches: 4 } as typeof split,
    });
    if (!edit.ok) throw new Error(edit.error);
    const { result } = computeDesign(edit.design, new Set());
    if (result.ok) throw new Error('the edit should break an order');
    // The compiler says where it failed: device 0's order names microbatch 4, which is gone.
    expect(result.errors).toEqual([
      { path: 'directives[5].filters[5][0].MB', message: 'MB has 4 indices (0..3), not 4' },
    ]);
    const touched = touchedDirective(dropped.design, edit.design, edit.select);
    const caused = causedErrors(result.errors, edit.design, touched ? [touched] : []);
    expect([...caused.keys()]).toEqual([splitAt]);
    expect(caused.get(splitAt)).toEqual(result.errors);
    expect(filterAtPath(edit.design, 'directives[5].filters[5][0]')).toBe('PP=0 MB=4 PASS=F');
  });

  test('a suspect is followed by identity when directives move around it', () => {
    const edited = { ...dropped.design.directives[at]! };
    const design2 = { ...dropped.design, directives: dropped.design.directives.with(at, edited) };
    const moved = moveDirective(design2, at, 0);
    const caused = causedErrors([{ path: 'directives[8].filters[0][0]', message: 'matches no op' }], moved, [
      edited,
    ]);
    expect([...caused.keys()]).toEqual([0]);
  });

  test('an error in the edited directive itself is its own, not blamed twice', () => {
    const suspect = dropped.design.directives[at]!;
    const errors = [{ path: `directives[${at}].filter.PP`, message: 'no block has tag PP=9' }];
    expect(causedErrors(errors, dropped.design, [suspect]).size).toBe(0);
  });

  test('an edit that makes no single directive anew touches none', () => {
    expect(touchedDirective(design, dropped.design)).toBeUndefined();
    expect(directiveOfPath('directives[12].expansion[3].filters[1][0]')).toBe(12);
    expect(directiveOfPath('model.stages')).toBeUndefined();
    expect(filterAtPath(design, 'directives[0].expansion[3].filters[0][0]')).toBeUndefined();
    expect(filterAtPath(design, 'directives[0].microbatches')).toBeUndefined();
  });
});
