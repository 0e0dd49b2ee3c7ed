import { expect, test } from 'vitest';
import { readFixture, TORCH_INTERLEAVED_ORDERS } from '../../../../test/repoFiles.ts';
import { compile } from '../compile/compile.ts';
import { exportTorchCsv } from './torchExport.ts';
import { importTorchCsv } from './torchImport.ts';

async function roundTrip(file: string, dialect: 'current' | 'legacy') {
  const text = await readFixture(`torch/${file}`);
  const imported = importTorchCsv(text, { dialect });
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  const compiled = compile(imported.design, { keepSnapshots: false });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
  const out = exportTorchCsv(compiled.plan, compiled.program, { dialect });
  if (!out.ok) throw new Error(JSON.stringify(out.errors));
  return { text, out: out.text, design: imported.design };
}

test('the DualPipeV artifact (current dialect) imports and exports back byte for byte', async () => {
  const { text, out } = await roundTrip('dualpipev_4rank_10mb.csv', 'current');
  expect(out).toBe(text);
});

test('the interleaved ZB1P artifact (legacy dialect, idle cells) imports and exports back byte for byte', async () => {
  const { text, out } = await roundTrip('zb1p_2rank_2stagep_compute.csv', 'legacy');
  expect(out).toBe(text);
});

test.each(TORCH_INTERLEAVED_ORDERS.map(([file]) => file))(
  'PyTorch’s ScheduleInterleaved1F1B order %s (idle steps kept) imports and exports back byte for byte',
  async (file) => {
    const { text, out } = await roundTrip(file, 'current');
    expect(out).toBe(text);
  },
);
