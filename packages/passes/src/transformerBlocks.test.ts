import { resolveTransformer, type TransformerConfig, type TransformerModel } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { parameterCounts } from './transformerBlocks.ts';

function config(model: Omit<TransformerModel, 'kind'>): TransformerConfig {
  const r = resolveTransformer({ kind: 'transformer', ...model });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** Published totals (model cards / papers); a preset is within 1% of each. */
const PUBLISHED: [preset: string, totalB: number, activeB?: number][] = [
  ['llama3-8b', 8.03],
  ['llama3-70b', 70.6],
  ['llama3.1-405b', 405],
  ['qwen3-8b', 8.2],
  ['qwen3-30b-a3b', 30.5, 3.3],
  ['mixtral-8x7b', 46.7, 12.9],
  ['deepseek-v3', 671, 37],
];

describe('preset parameter counts match the published totals within 1% (active within 2%)', () => {
  it.each(PUBLISHED)('%s has %f B parameters', (preset, totalB, activeB) => {
    const p = parameterCounts(config({ preset }));
    expect(Math.abs(p.total / 1e9 - totalB) / totalB).toBeLessThan(0.01);
    if (activeB !== undefined) expect(Math.abs(p.active / 1e9 - activeB) / activeB).toBeLessThan(0.02);
    else expect(p.active).toBe(p.total);
  });

  it('DeepSeek-V3 with its MTP module is the 685 B of the released checkpoint', () => {
    const p = parameterCounts(config({ preset: 'deepseek-v3' }));
    expect(Math.abs((p.total + p.mtp) / 1e9 - 685) / 685).toBeLessThan(0.01);
  });
});
