import { describe, expect, test } from 'vitest';
import { groupCopies } from './savedGroups.ts';

describe("the Open dialog's groups", () => {
  test("an example's copies follow it, the group where its newest copy is; others keep their place", () => {
    // Newest first, as the API lists them.
    const list = [
      { id: 'mine-2', example: '1f1b-p4-m8' },
      { id: 'plain' },
      { id: 'mine-1', example: '1f1b-p4-m8' },
      { id: 'orphan', example: 'deleted-example' },
      { id: 'gpipe-p4-m8' },
      { id: '1f1b-p4-m8' },
    ];
    expect(groupCopies(list).map((e) => [e.design.id, e.copyOf])).toEqual([
      ['1f1b-p4-m8', null],
      ['mine-2', '1f1b-p4-m8'],
      ['mine-1', '1f1b-p4-m8'],
      ['plain', null],
      ['orphan', 'deleted-example'],
      ['gpipe-p4-m8', null],
    ]);
  });

  test('every design is listed once, copies or not', () => {
    const list = [{ id: 'a', example: 'b' }, { id: 'b' }, { id: 'c', example: 'c' }];
    const ids = groupCopies(list).map((e) => e.design.id);
    expect(ids.sort()).toEqual(['a', 'b', 'c']);
  });
});
