import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { updateDirectiveAction } from './actions.ts';
import { computeDesign } from './computeDesign.ts';
import { causedErrors, directiveOfPath, filterAtPath, touchedDirective } from './errorCause.ts';
import { dropItem } from './palette.ts';
import { moveDirective } from './program.ts';
import { moveOp } from './reorder.ts';
import { expandSchedule } from './schedule.ts';

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

  test('a split_backward moved to stage 2 is blamed for the schedule edit that named its BW', () => {
    // Device 1 runs microbatch 0's BW after microbatch 3's forward: an edit of the schedule.
    const moved = moveOp(dropped.design, computed(dropped.design), {
      op: 'BW.b1.mb0',
      target: 'F.b1.mb3',
      position: 'after',
    });
    if (!moved.ok) throw new Error(moved.reason);
    const edit = updateDirectiveAction.perform(moved.design, {
      index: at,
      directive: { op: 'split_backward', filter: { PP: 2 } },
    });
    if (!edit.ok) throw new Error(edit.error);
    const { result } = computeDesign(edit.design, new Set());
    if (result.ok) throw new Error('the edit should break the schedule’s edit');
    // The compiler says where it failed: the schedule's edit names a BW that is no longer split.
    expect(result.errors).toEqual([
      {
        path: 'directives[0].edits[0].op',
        message:
          '1BW0: the schedule runs that backward as one B; a split_backward on PP=1 splits it into BI and BW',
      },
    ]);
    const touched = touchedDirective(moved.design, edit.design, edit.select);
    const caused = causedErrors(result.errors, edit.design, touched ? [touched] : []);
    expect([...caused.keys()]).toEqual([at]);
    expect(caused.get(at)).toEqual(result.errors);
    // The path's op says which op was not found.
    expect(filterAtPath(edit.design, 'directives[0].edits[0].op')).toBe('PP=1 MB=0 PASS=BW');
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
    const expanded = expandSchedule(design, 0, computed(design).program);
    if (!expanded.ok) throw new Error(expanded.error);
    expect(touchedDirective(design, expanded.design)).toBeUndefined();
    expect(directiveOfPath('directives[12].expansion[3].filters[1][0]')).toBe(12);
    expect(directiveOfPath('model.stages')).toBeUndefined();
    expect(filterAtPath(design, 'directives[0].expansion[3].filters[0][0]')).toBeUndefined();
    expect(filterAtPath(design, 'directives[0].microbatches')).toBeUndefined();
  });
});
