/** Whatever a user feeds the importers, they answer with a design or with errors; they never throw. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { importPiper } from './piperProgram.ts';
import { importTorchCsv } from './torchImport.ts';

const cell = fc.oneof(
  fc.constantFrom(
    '',
    '0F0',
    '1B0',
    '0I1',
    '0W1',
    '2SEND_F0',
    '1RECV_B0',
    '0UNSHARD',
    '0REDUCE_GRAD',
    '(0F1;1B0)OVERLAP_F_B',
    '0BW0',
    '(0F0',
    '3',
  ),
  fc.string({ maxLength: 6 }),
);
const csv = fc
  .array(fc.array(cell, { maxLength: 8 }), { minLength: 1, maxLength: 4 })
  .map((rows) => rows.map((r) => r.join(',')).join('\n'));

test('importTorchCsv answers every text with a design or errors', () => {
  fc.assert(
    fc.property(csv, fc.constantFrom('current' as const, 'legacy' as const), (text, dialect) => {
      const r = importTorchCsv(text, { dialect });
      if (!r.ok) for (const e of r.errors) expect(typeof e.message).toBe('string');
    }),
    { numRuns: 300 },
  );
});

const filter = fc.dictionary(
  fc.constantFrom('PP', 'MB', 'PASS', 'EP', 'X'),
  fc.oneof(fc.nat(3), fc.constantFrom('*', 'F', 'B')),
);
const directive = fc.oneof(
  fc.record({
    op: fc.constant('split'),
    filter,
    dim_name: fc.constantFrom('MB', 'mb'),
    num_microbatches: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ op: fc.constant('place'), filter, devices: fc.array(fc.nat(3), { maxLength: 2 }) }),
  fc.record({
    op: fc.constant('order'),
    filters: fc.array(fc.array(filter, { maxLength: 2 }), { maxLength: 4 }),
  }),
  fc.record({
    op: fc.constantFrom('replicate', 'shard', 'schedule', 'nope'),
    filter,
    devices: fc.array(fc.nat(3), { maxLength: 2 }),
  }),
  fc.anything(),
);

test('importPiper answers every program with a design or errors', () => {
  fc.assert(
    fc.property(fc.array(directive, { maxLength: 6 }), (program) => {
      const r = importPiper(JSON.stringify(program));
      if (!r.ok) for (const e of r.errors) expect(typeof e.path).toBe('string');
    }),
    { numRuns: 300 },
  );
});
