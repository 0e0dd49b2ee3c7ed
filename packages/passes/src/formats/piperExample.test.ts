/**
 * examples/piper-pp2-dp2-ep2.json says it is Piper's pp2_dp2_ep2_custom_order.json loaded
 * unchanged; these tests hold it to Piper's order, where one slot overlaps two passes.
 */
import { expect, test } from 'vitest';
import { exampleDesigns } from '../../../../test/repoFiles.ts';
import { compile } from '../compile/compile.ts';
import { importPiper } from './piperProgram.ts';

const example = (await exampleDesigns()).find((e) => e.file === 'piper-pp2-dp2-ep2.json')!.design;

// Piper's two order directives, as Piper writes them.
const PIPER_ORDERS = [
  {
    op: 'order',
    filters: [
      [{ PP: 0, MB: 0, PASS: 'F' }],
      [{ PP: 0, MB: 1, PASS: 'F' }],
      [{ PP: 0, MB: 0, PASS: 'B' }],
      [{ PP: 0, MB: 1, PASS: 'B' }],
    ],
  },
  {
    op: 'order',
    filters: [
      [{ PP: 1, MB: 0, PASS: 'F' }],
      [
        { PP: 1, MB: 0, PASS: 'B' },
        { PP: 1, MB: 1, PASS: 'F' },
      ],
      [{ PP: 1, MB: 1, PASS: 'B' }],
    ],
  },
];

test('the Piper example’s stage 1 runs the backward of microbatch 0 and the forward of microbatch 1 in one slot, as Piper’s program does', () => {
  expect(example.directives[8]).toEqual(PIPER_ORDERS[1]);
});

test('the Piper example’s orders are Piper’s, slot for slot', () => {
  expect(example.directives.filter((d) => d.op === 'order')).toEqual(PIPER_ORDERS);
});

test('the Piper example imports as a Piper program on its model and compiles with its overlapped slot', () => {
  const { model, cluster } = example;
  const imported = importPiper(JSON.stringify(example.directives), { model, cluster });
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  expect(imported.design.directives).toEqual(example.directives);
  const compiled = compile(example, { keepSnapshots: false });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
});
