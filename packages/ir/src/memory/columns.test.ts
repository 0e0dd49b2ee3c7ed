import { describe, expect, test } from 'vitest';
import { editable, lengthened, newColumn, shortened } from './columns.ts';

describe('columns lengthen in place only past the rows in use', () => {
  test('a column with room grows into the same memory, and its input still ends where it did', () => {
    const a = newColumn(Int32Array, 4, 3, 10);
    a.set([1, 2, 3]);
    const b = lengthened(a, 5, -1);
    expect(b.buffer).toBe(a.buffer);
    expect([...b]).toEqual([1, 2, 3, -1, -1]);
    expect([...a]).toEqual([1, 2, 3]);
  });

  test('lengthening the same input twice never lets the second write the first one’s rows', () => {
    const a = newColumn(Float64Array, 8, 2, 10);
    a.set([0.5, 1.5]);
    const first = lengthened(a, 4, 0);
    first[2] = 7;
    const second = lengthened(a, 4, 0);
    second[2] = 9;
    expect(second.buffer).not.toBe(a.buffer);
    expect(first[2]).toBe(7);
    expect([...second]).toEqual([0.5, 1.5, 9, 0]);
  });

  test('a column without room, or not made by newColumn, is copied', () => {
    const exact = newColumn(Uint8Array, 1, 2, 0);
    expect(lengthened(exact, 3, 5).buffer).not.toBe(exact.buffer);
    const plain = new Int32Array(8).subarray(0, 2);
    const grown = lengthened(plain, 4, 0);
    expect(grown.buffer).not.toBe(plain.buffer);
  });

  test('a column shortened to a view gives its tail back as room', () => {
    const a = newColumn(Int32Array, 4, 6, 0);
    a.set([1, 2, 3, 4, 5, 6]);
    const short = shortened(a, 2);
    expect([...short]).toEqual([1, 2]);
    const again = lengthened(short, 4, 0);
    expect(again.buffer).toBe(a.buffer);
    expect([...again]).toEqual([1, 2, 0, 0]);
  });

  test('an editable copy keeps the room of the column it copies, and leaves that column alone', () => {
    const a = newColumn(Int32Array, 4, 3, 5);
    a.set([1, 2, 3]);
    const b = editable(a);
    b[0] = 9;
    expect([...a]).toEqual([1, 2, 3]);
    expect(b.buffer).not.toBe(a.buffer);
    const c = lengthened(b, 8, 0);
    expect(c.buffer).toBe(b.buffer);
    expect([...c]).toEqual([9, 2, 3, 0, 0, 0, 0, 0]);
  });
});
