import { type Design, resolveTransformer } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compiled } from '../../test/parallelDesigns.ts';

/** DeepSeek-V3's shapes with two layers and its MTP module, on `ranks` pipeline stages of one GPU each. */
function deepseek(builder: '1f1b' | 'dualpipe', ranks: number): Design {
  return {
    format: 'stagecraft/design@2',
    name: 'deepseek mtp',
    model: {
      kind: 'transformer',
      preset: 'deepseek-v3',
      layers: 2,
      seqLen: 512,
      moe: { denseLayers: 1 },
      annotate: { PP: ranks },
    },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [{ op: 'schedule', builder, ranks, microbatches: 4 }],
  };
}

const c = (() => {
  const r = resolveTransformer({ kind: 'transformer', preset: 'deepseek-v3' });
  if (!r.ok) throw new Error('preset');
  return r.config;
})();
const table = c.vocab * c.hidden * 2;

/** Parameter bytes device d holds, and the sum of its blocks' paramBytes. */
function held(design: Design, d: number) {
  const { plan } = compiled(design);
  const dp = plan.devices.find((x) => x.device === d)!;
  return { params: dp.memory!.params, blocks: dp.paramBytes };
}

describe('an MTP module shares the main model’s embedding and head', () => {
  it('once per GPU where DualPipe puts the embedding and the MTP head on one rank', () => {
    // DualPipe's rank 0 runs stage 0 (embedding) and stage 1 (MTP module, head) of the two copies.
    const { params, blocks } = held(deepseek('dualpipe', 2), 0);
    expect(blocks - params).toBe(2 * table + c.hidden * 2);
  });

  it('only the head where the embedding is on another stage (1F1B)', () => {
    const last = held(deepseek('1f1b', 2), 1);
    expect(last.blocks - last.params).toBe(table + c.hidden * 2);
    const first = held(deepseek('1f1b', 2), 0);
    expect(first.blocks).toBe(first.params);
  });
});
