import { type Design, parsePlanText } from '@stagecraft/ir';
import { compile, importPiper, importTorchCsv } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { exportDesign, simulate } from '../src/index.ts';
import { exampleDesigns, readShared } from './repoFiles.ts';

const examples = exampleDesigns();

function exported(design: Design, format: Parameters<typeof exportDesign>[1], options = {}) {
  const r = exportDesign(design, format, options);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

function planOf(design: Design) {
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

describe('plan export', () => {
  test.each(examples)('$file: export → load → simulate gives the same metrics', ({ design }) => {
    const r = exported(design, 'plan');
    expect(r.mediaType).toBe('application/json');
    expect(r.fileExtension).toBe('plan.json');
    const loaded = parsePlanText(r.text);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const direct = simulate(planOf(design), { keepTimeline: false });
    const again = simulate(loaded.plan, { keepTimeline: false });
    expect(again).toEqual(direct);
  });
});

describe('piper export', () => {
  test.each(examples)(
    '$file: exports to Piper and re-imports to a design that compiles to the same plan',
    ({ design }) => {
      const r = exported(design, 'piper');
      const program = JSON.parse(r.text) as { op: string }[];
      for (const d of program)
        expect(['place', 'replicate', 'shard', 'shard_tensor', 'split', 'order']).toContain(d.op);
      const back = importPiper(r.text, { model: design.model, cluster: design.cluster, name: design.name });
      if (!back.ok) throw new Error(JSON.stringify(back.errors));
      expect(planOf(back.design)).toEqual(planOf(design));
    },
  );

  test('a design written in Piper ops exports them unchanged', () => {
    const manual = examples.find((e) => e.file === 'manual-order-p2-m4.json')!.design;
    expect(JSON.parse(exported(manual, 'piper').text)).toEqual(manual.directives);
  });
});

describe('torch-csv export', () => {
  test('the DualPipeV example exports compute_only exactly as torch’s dualpipev_4rank_10mb.csv', () => {
    const design = examples.find((e) => e.file === 'dualpipev-p4-m10.json')!.design;
    const r = exported(design, 'torch-csv');
    expect(r.mediaType).toBe('text/csv');
    expect(r.text).toBe(readShared('reference/torch/dualpipev_4rank_10mb.csv'));
  });

  test.each([
    ['dualpipev_4rank_10mb.csv', 'current'],
    ['zb1p_2rank_2stagep_compute.csv', 'legacy'],
  ] as const)('%s (%s dialect) imports and exports back byte for byte', (file, dialect) => {
    const text = readShared(`reference/torch/${file}`);
    const imported = importTorchCsv(text, { dialect });
    if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
    expect(exported(imported.design, 'torch-csv', { torchDialect: dialect }).text).toBe(text);
  });

  test('DualPipe’s two model copies are refused with the reason, not written as a wrong file', () => {
    const design = examples.find((e) => e.file === 'dualpipe-p4-m8.json')!.design;
    const r = exportDesign(design, 'torch-csv');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]!.path).toBe('directives[0]');
    expect(r.errors[0]!.message).toMatch(/two copies of the model/);
  });
});
