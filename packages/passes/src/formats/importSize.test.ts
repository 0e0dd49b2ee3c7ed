import { now } from '@stagecraft/ir';
import { expect, test } from 'vitest';
import { importPiper } from './piperProgram.ts';
import { importTorchCsv } from './torchImport.ts';

/** Each of these once took from 7 s to minutes and gigabytes before failing. */
const QUICK_MS = 2_000;

function timed<T>(f: () => T): T {
  const t0 = now();
  const r = f();
  expect(now() - t0).toBeLessThan(QUICK_MS);
  return r;
}

test('a torch CSV naming microbatch 9,999,999 is refused by its size where the largest one is written', () => {
  const r = timed(() => importTorchCsv('0F0,0B0,0F9999999,0B9999999\n'));
  expect(r).toEqual({
    ok: false,
    errors: [
      {
        path: 'row 1, cell 3',
        message:
          '1 stages × 10,000,000 microbatches would make about 30,000,000 ops, over the limit of 2,000,000',
      },
    ],
  });
});

test('the op limit is the caller’s: a schedule within the default is refused under a smaller one', () => {
  const csv = '0F0,0F1,0B0,0B1\n';
  expect(importTorchCsv(csv).ok).toBe(true);
  const r = importTorchCsv(csv, { maxOps: 5 });
  expect(!r.ok && r.errors[0]!.message).toBe(
    '1 stages × 2 microbatches would make about 6 ops, over the limit of 5',
  );
});

test('a given model too large for the schedule is refused at model before it is lowered', () => {
  const r = timed(() =>
    importTorchCsv('0F0,0B0\n', { model: { kind: 'synthetic', stages: 1e8, costs: { F: 1, BI: 1, BW: 1 } } }),
  );
  expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['model']);
});

test('a stage index past 2^53 is refused where it is written', () => {
  const r = importTorchCsv('12345678901234567890123F0\n');
  expect(!r.ok && r.errors[0]).toEqual({
    path: 'row 1, cell 1',
    message: '"12345678901234567890123F0": stage 12345678901234567890123 is not a usable index',
  });
});

test('a torch CSV of 300 bad cells lists the first 100 and counts them all', () => {
  const r = importTorchCsv(`${Array(300).fill('0X0').join(',')}\n`);
  expect(!r.ok && r.errors.length).toBe(101);
  expect(!r.ok && r.errors[100]).toEqual({ path: '', message: '… and 200 more problems (300 in all)' });
});

test.each([
  ['PP 1,000,000', '{"op":"place","filter":{"PP":1000000},"devices":[0]}', 'directives[0].filter.PP'],
  ['PP 1e8', '{"op":"place","filter":{"PP":1e8},"devices":[0]}', 'directives[0].filter.PP'],
  [
    'device 999,999,999',
    '{"op":"place","filter":{"PP":0},"devices":[999999999]}',
    'directives[0].devices[0]',
  ],
  [
    '1,000,000 microbatches',
    '{"op":"split","filter":{},"dim_name":"MB","num_microbatches":1000000}',
    'directives[0].num_microbatches',
  ],
])('a Piper program naming %s is refused by its size at that field', (_what, directive, path) => {
  const r = timed(() => importPiper(`[${directive}]`));
  expect(!r.ok && r.errors.map((e) => e.path)).toEqual([path]);
  expect(!r.ok && r.errors[0]!.message).toMatch(/over the limit of 2,000,000|more than the op limit/);
});
