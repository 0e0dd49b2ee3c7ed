import { expect, test } from 'vitest';
import { orderOfSlots, slotsOf } from './orderSlots.ts';

const slots = () => ({
  at: Int32Array.from([0, 1, 1, 3]),
  pp: Int32Array.from([0, 1, 1]),
  dir: Int32Array.from([-1, 0, 1]),
  mb: Int32Array.from([4, 5, 5]),
  pass: Uint8Array.from([0, 2, 3]),
});

test('an order of slot columns reads as the plain order it stands for', () => {
  const d = orderOfSlots(slots());
  const plain = {
    op: 'order',
    filters: [
      [{ PP: 0, MB: 4, PASS: 'F' }],
      [],
      [
        { PP: 1, DIR: 0, MB: 5, PASS: 'BI' },
        { PP: 1, DIR: 1, MB: 5, PASS: 'BW' },
      ],
    ],
  };
  expect(JSON.stringify(d)).toBe(JSON.stringify(plain));
  expect(d).toEqual(plain);
});

test('the columns speak for the order only until its filters are read', () => {
  const d = orderOfSlots(slots());
  expect(slotsOf(d)?.mb[0]).toBe(4);
  expect(d.filters[0]![0]!.MB).toBe(4);
  expect(slotsOf(d)).toBeUndefined();
  // Read filters are the order's own: an edit of them is what the order says.
  d.filters[0]![0] = { PP: 0, MB: 1, PASS: 'F' };
  expect(d.filters[0]![0]!.MB).toBe(1);
  expect(slotsOf({ op: 'order', filters: [] })).toBeUndefined();
});
