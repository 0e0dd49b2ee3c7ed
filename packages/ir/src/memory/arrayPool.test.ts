import { expect, test } from 'vitest';
import { FRESH, lend } from './arrayPool.ts';

test('a loan hands out zeroed arrays (or filled ones), even in memory an earlier loan wrote', () => {
  const first = lend();
  const a = first.int32(1000);
  a.fill(7);
  const f = first.float64(500, 2.5);
  expect(f.every((x) => x === 2.5)).toBe(true);
  first.close();
  const second = lend();
  const b = second.int32(900);
  expect(b.length).toBe(900);
  expect(b.every((x) => x === 0)).toBe(true);
  expect(second.uint8(10, 3).every((x) => x === 3)).toBe(true);
  second.close();
});

test('memory goes back to the pool when a loan closes, and open loans never share it', () => {
  const outer = lend();
  const a = outer.int32(4096);
  const inner = lend();
  const b = inner.int32(4096);
  expect(b.buffer).not.toBe(a.buffer);
  inner.close();
  const next = lend();
  expect(next.int32(4096).buffer).toBe(b.buffer);
  next.close();
  outer.close();
});

test('FRESH arrays are new every time', () => {
  expect(FRESH.int32(4).buffer).not.toBe(FRESH.int32(4).buffer);
  expect([...FRESH.float64(2, -1)]).toEqual([-1, -1]);
});
