/** Bad files get an error naming where (row and cell, or directive index) and what; nothing throws. */
import { expect, test } from 'vitest';
import { readFixture } from '../../../../test/repoFiles.ts';
import { importPiper } from './piperProgram.ts';
import { importTorchCsv } from './torchImport.ts';

const dualpipev = await readFixture('torch/dualpipev_4rank_10mb.csv');

function errorsOf(r: { ok: boolean; errors?: { path: string; message: string }[] }) {
  expect(r.ok).toBe(false);
  return r.errors ?? [];
}

test('a CSV cut inside a cell names the row and cell of the cut', () => {
  const cut = dualpipev.slice(0, dualpipev.indexOf('7F2,') + 2); // "...,7F"
  const [e] = errorsOf(importTorchCsv(cut));
  expect(e).toEqual({ path: 'row 1, cell 14', message: '"7F" has no microbatch index (a truncated cell?)' });
});

test('a CSV cut between rows says which row ends without which action', () => {
  const twoRows = dualpipev.split('\n').slice(0, 2).join('\n');
  const errors = errorsOf(importTorchCsv(twoRows));
  expect(errors[0]!.message).toMatch(/^stage 2 never runs/);
});

test('a row cut short names the row, the cell where it ends and the missing action', () => {
  const rows = dualpipev.trimEnd().split('\n');
  rows[3] = rows[3]!.split(',').slice(0, -2).join(',');
  const errors = errorsOf(importTorchCsv(`${rows.join('\n')}\n`));
  expect(errors).toEqual([
    {
      path: 'row 4, cell 32',
      message: 'row 4 ends without the backward for weights (W) of stage 3, microbatch 9 (a truncated file?)',
    },
    {
      path: 'row 4, cell 32',
      message: 'row 4 ends without the backward for weights (W) of stage 4, microbatch 9 (a truncated file?)',
    },
  ]);
});

test('an unknown action type names the row, the cell and the types the dialect knows', () => {
  const bad = dualpipev.replace('2F3,', '2X3,');
  const [e] = errorsOf(importTorchCsv(bad));
  expect(e!.path).toBe('row 3, cell 5');
  expect(e!.message).toMatch(
    /^unknown action type "X" in "2X3" \(the current dialect has F, I, W, B, SEND_F/,
  );
});

test('the legacy BW read as the current dialect points to the legacy dialect', () => {
  const [e] = errorsOf(importTorchCsv('0F0,0BW0\n'));
  expect(e).toMatchObject({ path: 'row 1, cell 2' });
  expect(e!.message).toMatch(/read the file with the legacy dialect$/);
  expect(importTorchCsv('0F0,0BW0\n', { dialect: 'legacy' }).ok).toBe(true);
});

test('an overlapped group must say OVERLAP_F_B and hold compute actions', () => {
  expect(errorsOf(importTorchCsv('(0F0;0F1)OVERLAP\n'))[0]!.message).toMatch(/followed by OVERLAP_F_B/);
  expect(errorsOf(importTorchCsv('(0F0;0SEND_F0)OVERLAP_F_B\n'))[0]!.message).toMatch(/only compute actions/);
});

test('a stage on two rows, a duplicate action and a weight gradient before its input gradient are named', () => {
  expect(errorsOf(importTorchCsv('0F0,0B0\n0F1\n'))[0]).toMatchObject({ path: 'row 2, cell 1' });
  expect(errorsOf(importTorchCsv('0F0,0F0,0B0\n'))[0]).toEqual({
    path: 'row 1, cell 2',
    message: 'stage 0 F of microbatch 0 already ran at row 1, cell 1',
  });
  expect(errorsOf(importTorchCsv('0F0,0W0,0I0\n'))[0]).toEqual({
    path: 'row 1, cell 2',
    message: 'stage 0 W of microbatch 0 runs before its backward for inputs (I)',
  });
});

test('PyTorch’s Schedule1F1B(2 ranks, 2 microbatches) order is refused at rank 1’s backward of microbatch 0, which runs before its forward', async () => {
  const upstream = await readFixture('torch/schedule1f1b_2rank_2mb_upstream_order.csv');
  expect(errorsOf(importTorchCsv(upstream))).toEqual([
    {
      path: 'row 2, cell 2',
      message: 'stage 1 B of microbatch 0 runs on rank 1 before its forward (F), which rank 1 never runs',
    },
  ]);
});

test('a backward before its forward in the same row names both cells', () => {
  expect(errorsOf(importTorchCsv('0F0,0I1,0F1,0W1,0B0\n'))).toEqual([
    {
      path: 'row 1, cell 2',
      message:
        'stage 0 I of microbatch 1 runs on rank 0 before its forward (F), which rank 0 runs later, at row 1, cell 3',
    },
  ]);
});

test('an order the data forbids (a cycle across ranks) is reported at the cell of a row', () => {
  const [e] = errorsOf(importTorchCsv('0F0,0B0,0F1,0B1\n1F1,1B1,1F0,1B0\n'));
  expect(e!.path).toMatch(/^row [12], cell [12]$/);
  expect(e!.message).toMatch(/cycle/);
});

test('an empty file is one error, not a crash', () => {
  expect(errorsOf(importTorchCsv(''))).toEqual([{ path: '', message: 'the file is empty' }]);
});

const piper = (program: unknown[]) => JSON.stringify(program);
const base = [
  { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
  { op: 'place', filter: { PP: 0 }, devices: [0] },
  { op: 'place', filter: { PP: 1 }, devices: [1] },
];

test('a Piper program with an unknown op names the directive index', () => {
  const errors = errorsOf(importPiper(piper([...base, { op: 'pipeline', filter: {} }])));
  expect(errors).toEqual([
    {
      path: 'directives[3].op',
      message:
        'unknown Piper op "pipeline" (Piper\'s ops are place, replicate, shard, shard_tensor, split, order)',
    },
  ]);
});

test('a Stagecraft macro in a Piper program is named as not one of Piper’s ops', () => {
  const [e] = errorsOf(importPiper(piper([{ op: 'schedule', builder: '1f1b', microbatches: 4 }])));
  expect(e!.path).toBe('directives[0].op');
  expect(e!.message).toMatch(/^schedule is a Stagecraft directive, not one of Piper's ops/);
});

test('a Piper program with an unknown tag names the directive and the filter key', () => {
  const errors = errorsOf(
    importPiper(
      piper([...base, { op: 'order', filters: [[{ PP: 0, MB: 0, PASS: 'F' }], [{ PP: 0, XB: 1 }]] }]),
    ),
  );
  expect(errors).toEqual([
    {
      path: 'directives[3].filters[1][0].XB',
      message: "unknown tag XB (the model's tags are PP; split dimensions MB; and PASS)",
    },
  ]);
});

test('a Piper program with a bad field is reported at that field', () => {
  const [e] = errorsOf(importPiper(piper([{ op: 'place', filter: { PP: 0 }, devices: [] }])));
  expect(e!.path).toBe('directives[0].devices');
});

test('a Piper file that is not JSON, or not an array, gets one clear error', () => {
  expect(errorsOf(importPiper('[{"op":'))[0]!.message).toMatch(/^invalid JSON/);
  expect(errorsOf(importPiper('{"op":"place"}'))).toEqual([
    { path: '', message: 'a Piper program is a JSON array of directives' },
  ]);
});

test('a valid Piper program imports onto a synthetic model with its PP stages and devices', () => {
  const r = importPiper(piper(base));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  expect(r.design.model).toEqual({ kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } });
  expect(r.design.cluster).toEqual({ kind: 'ideal', devices: 2 });
});

test('in a compute_comms file, errors count the communication cells too', () => {
  expect(errorsOf(importTorchCsv('0F0,0SEND_F0,0F0,0B0\n'))[0]).toEqual({
    path: 'row 1, cell 3',
    message: 'stage 0 F of microbatch 0 already ran at row 1, cell 1',
  });
});
