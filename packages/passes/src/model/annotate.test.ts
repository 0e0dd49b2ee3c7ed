import { CompileError, type TransformerModel } from '@stagecraft/ir';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balancedCuts } from './annotate.ts';
import { formatStageLayers, lowerTransformer } from './lowerTransformer.ts';

const TINY = {
  kind: 'transformer',
  layers: 8,
  hidden: 64,
  ffnHidden: 256,
  heads: 4,
  vocab: 100,
  seqLen: 16,
} as const satisfies TransformerModel;

function stagesOf(model: TransformerModel): string {
  return formatStageLayers(lowerTransformer(model).stages);
}

function errorOf(model: TransformerModel): { path: string; message: string }[] {
  try {
    lowerTransformer(model);
  } catch (e) {
    if (e instanceof CompileError) return e.issues;
    throw e;
  }
  throw new Error('expected a CompileError');
}

describe('balanced contiguous cuts', () => {
  it('minimise the heaviest stage (brute force on small inputs agrees)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        (w, k) => {
          const parts = (k % w.length) + 1;
          const cuts = balancedCuts(w, parts);
          expect(cuts).toHaveLength(parts - 1);
          const bounds = [0, ...cuts, w.length];
          for (let i = 1; i < bounds.length; i++) expect(bounds[i]!).toBeGreaterThan(bounds[i - 1]!);
          const heaviest = (b: number[]) =>
            Math.max(...b.slice(1).map((e, i) => w.slice(b[i]!, e).reduce((a, x) => a + x, 0)));
          let best = Number.POSITIVE_INFINITY;
          const search = (start: number, left: number, acc: number[]) => {
            if (left === 1) {
              best = Math.min(best, heaviest([...acc, w.length]));
              return;
            }
            for (let c = start + 1; c <= w.length - left + 1; c++) search(c, left - 1, [...acc, c]);
          };
          search(0, parts, [0]);
          expect(heaviest(bounds)).toBe(best);
        },
      ),
    );
  });

  it('balance by time, not layer count: Llama-3-8B PP4 gives the head-heavy last stage fewer layers', () => {
    expect(stagesOf({ kind: 'transformer', preset: 'llama3-8b', annotate: { PP: 4 } })).toBe(
      '0: E t0–8 (9) | 1: t9–17 (9) | 2: t18–26 (9) | 3: t27–31 L (5)',
    );
  });

  it('every block carries its stage; without annotate the model is one stage', () => {
    const one = lowerTransformer(TINY);
    expect(one.blocks.every((b) => b.tags.PP === 0)).toBe(true);
    expect(stagesOf(TINY)).toBe('0: E t0–7 L (8)');
  });

  it('more stages than units is an error at PP', () => {
    expect(errorOf({ ...TINY, annotate: { PP: 11 } })).toEqual([
      {
        path: 'model.annotate.PP',
        message: '11 stages for 10 units (embedding, 8 layers, loss): at most 10',
      },
    ]);
  });
});

describe('explicit cut points', () => {
  it('cuts at layer indices; 0 leaves the embedding alone, layers leaves the loss alone', () => {
    expect(stagesOf({ ...TINY, annotate: { cuts: [3, 6] } })).toBe(
      '0: E t0–2 (3) | 1: t3–5 (3) | 2: t6–7 L (2)',
    );
    expect(stagesOf({ ...TINY, annotate: { cuts: [0, 8] } })).toBe('0: E (0) | 1: t0–7 (8) | 2: L (0)');
  });

  it('refuses cuts that duplicate or empty a stage, run past the model or disagree with PP', () => {
    expect(errorOf({ ...TINY, annotate: { cuts: [5, 3] } })).toEqual([
      {
        path: 'model.annotate.cuts[1]',
        message: 'cuts must increase: 3 after 5 would place layers 3–4 twice',
      },
    ]);
    expect(errorOf({ ...TINY, annotate: { cuts: [4, 4] } })).toEqual([
      { path: 'model.annotate.cuts[1]', message: 'repeats cut 4: stage 1 would hold no layer' },
    ]);
    expect(errorOf({ ...TINY, annotate: { cuts: [9] } })[0]!.path).toBe('model.annotate.cuts[0]');
    expect(errorOf({ ...TINY, annotate: { PP: 4, cuts: [4] } })).toEqual([
      { path: 'model.annotate.PP', message: 'PP is 4 but 1 cut(s) make 2 stages' },
    ]);
  });
});

describe("Megatron-LM's layout string", () => {
  it('places DeepSeek-V3 as its published PP16 × VPP2 layout', () => {
    const m = lowerTransformer({
      kind: 'transformer',
      preset: 'deepseek-v3',
      annotate: { layout: 'Et*3|(tt|)*29,m|L' },
    });
    expect(m.stages).toHaveLength(32);
    expect(m.stages[0]).toEqual({ stage: 0, embedding: true, layers: [0, 1, 2], mtp: [], loss: false });
    expect(m.stages[29]!.layers).toEqual([59, 60]);
    expect(m.stages[30]).toEqual({ stage: 30, embedding: false, layers: [], mtp: [61], loss: false });
    expect(m.stages[31]).toEqual({ stage: 31, embedding: false, layers: [], mtp: [], loss: true });
    // Every block of the MTP module sits on stage 30.
    expect(new Set(m.blocks.filter((b) => b.tags.LAYER === 61).map((b) => b.tags.PP))).toEqual(new Set([30]));
  });

  it('uneven layouts: embedding and loss on their own stages', () => {
    expect(stagesOf({ ...TINY, annotate: { layout: 'E|t*3|t*5|L' } })).toBe(
      '0: E (0) | 1: t0–2 (3) | 2: t3–7 (5) | 3: L (0)',
    );
  });

  const refusals: [string, string][] = [
    ['E|t*3|t*4|L', 'the layout places 7 layers (t) but the model has 8: it drops layer 7'],
    ['E|t*3|t*3|L', 'the layout places 6 layers (t) but the model has 8: it drops layers 6–7'],
    [
      'E|t*4|t*5|L',
      'the layout places 9 layers (t) but the model has 8: stage 2 duplicates a layer (there is no layer 8)',
    ],
    [
      'Et*8|EL',
      'the layout places the embedding (E) 2 times: it must appear once (the model is E, t × 8, L)',
    ],
    ['Et*8', 'the layout has no L: it drops the loss (the model is E, t × 8, L)'],
    ['t*4|E|t*4|L', 'stage 0 starts with t: the embedding (E) must come first'],
    ['E|t*4||t*4|L', 'stage 2 is empty: every stage must hold at least one of E, t, m, L'],
    ['Et*4|Lt*4', 'stage 1 ends with t: the loss (L) must come last'],
  ];
  it.each(refusals)('refuses %s', (layout, message) => {
    expect(errorOf({ ...TINY, annotate: { layout } })).toEqual([{ path: 'model.annotate.layout', message }]);
  });

  it('refuses a layout whose stage count is not PP, and a layout with cuts', () => {
    expect(errorOf({ ...TINY, annotate: { PP: 2, layout: 'Et*4|t*4|L' } })[0]!.path).toBe(
      'model.annotate.PP',
    );
    expect(errorOf({ ...TINY, annotate: { cuts: [4], layout: 'Et*4|t*4L' } })).toEqual([
      { path: 'model.annotate.layout', message: 'give either cuts or layout, not both' },
    ]);
  });

  it('an MTP module out of place is named', () => {
    expect(errorOf({ ...TINY, mtpLayers: 1, annotate: { layout: 'Et*4|t*4|L' } })[0]!.message).toBe(
      'the layout places 0 MTP modules (m) but the model has 1: it drops the MTP module at layer 8',
    );
    expect(errorOf({ ...TINY, mtpLayers: 1, annotate: { layout: 'Et*4|mt*4|L' } })[0]!.message).toBe(
      'stage 1 places a layer (t) after an MTP module (m): MTP modules follow the last layer',
    );
  });
});

describe('tags', () => {
  it('LAYER on layer blocks, TP on attention (0), MLPs (1), embedding and head (2, vocab-parallel), EP on routed experts', () => {
    const m = lowerTransformer({
      ...TINY,
      layers: 2,
      moe: { experts: 4, topK: 2, expertFfnHidden: 32, sharedExperts: 1, denseLayers: 1 },
      annotate: { PP: 2 },
    });
    expect(m.blocks.map((b) => [b.name, b.tags])).toEqual([
      ['embedding', { PP: 0, TP: 2 }],
      ['layer 0 attention', { PP: 0, LAYER: 0, TP: 0 }],
      ['layer 0 mlp', { PP: 0, LAYER: 0, TP: 1 }],
      ['layer 1 attention', { PP: 1, LAYER: 1, TP: 0 }],
      ['layer 1 router', { PP: 1, LAYER: 1 }],
      ['layer 1 shared experts', { PP: 1, LAYER: 1, TP: 1 }],
      ['layer 1 experts', { PP: 1, LAYER: 1, EP: 0 }],
      ['head', { PP: 1, TP: 2 }],
    ]);
  });

  it('TP and EP tags can be turned off', () => {
    const m = lowerTransformer({
      ...TINY,
      moe: { experts: 4, topK: 2, expertFfnHidden: 32 },
      annotate: { TP: false, EP: false },
    });
    expect(m.blocks.some((b) => 'TP' in b.tags || 'EP' in b.tags)).toBe(false);
  });
});

describe('every annotation places each layer exactly once, in order', () => {
  it('balanced cuts for any layer count and PP', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 42 }), (layers, pp) => {
        fc.pre(pp <= layers + 2);
        const m = lowerTransformer({ ...TINY, layers, annotate: { PP: pp } });
        expect(m.stages).toHaveLength(pp);
        expect(m.stages.flatMap((s) => s.layers)).toEqual(Array.from({ length: layers }, (_, i) => i));
        expect(m.stages[0]!.embedding).toBe(true);
        expect(m.stages[pp - 1]!.loss).toBe(true);
        for (const s of m.stages) expect(s.embedding || s.loss || s.layers.length > 0).toBe(true);
        // Stages appear in forward order along the chain of blocks.
        const pps = m.blocks.map((b) => b.tags.PP!);
        expect([...pps].sort((a, b) => a - b)).toEqual(pps);
      }),
      { numRuns: 60 },
    );
  });

  it('a layout of any stage sizes places exactly those layers on each stage', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 6 }), (sizes) => {
        const layers = sizes.reduce((a, b) => a + b, 0);
        const layout = `E${sizes.map((n) => `t*${n}`).join('|')}L`;
        const m = lowerTransformer({ ...TINY, layers, annotate: { layout } });
        expect(m.stages.map((s) => s.layers.length)).toEqual(sizes);
      }),
      { numRuns: 40 },
    );
  });
});
