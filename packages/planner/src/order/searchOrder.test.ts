import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { searchOrder } from '../index.ts';
import { unevenPipeline } from '../syntheticPipelines.ts';

const F = [1, 1.2, 0.9, 1.1, 1, 1.3, 0.8, 1.4];
const BI = [1.1, 1.3, 1, 1.2, 1.2, 1.4, 0.9, 1.8];
const BW = [0.8, 0.9, 0.7, 1, 0.8, 1, 0.6, 1.2];

describe('the order search on uneven stages with p2p time', () => {
  const cases: [p: number, m: number, k: number][] = [
    [4, 4, 1],
    [4, 8, 1],
    [4, 8, 2],
    [4, 12, 1],
    [8, 8, 1],
  ];
  for (const [p, m, k] of cases)
    it(`p=${p}, m=${m}, ${k}× 1F1B's stash: no builder that fits is faster, and every device is within the limit`, () => {
      const design = unevenPipeline({ ranks: p, microbatches: m, F, BI, BW, p2pLatencyMs: 0.1 });
      const r = searchOrder(design, { memoryLimit: { times1F1B: k }, budgetMs: 500, seed: 1 });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const fitting = r.baselines.filter((b) => b.fits);
      expect(fitting.map((b) => b.source)).toContain('1f1b');
      for (const b of fitting) expect(r.stepMs).toBeLessThanOrEqual(b.stepMs + 1e-9);
      r.peakMemoryBytes.forEach((peak, i) => {
        expect(peak).toBeLessThanOrEqual(r.limitBytes[i]!);
      });
    });

  it('beats every builder and the Zero Bubble heuristic where the local search finds a better order (p=4, m=8, 1×)', () => {
    const design = unevenPipeline({ ranks: 4, microbatches: 8, F, BI, BW, p2pLatencyMs: 0.1 });
    const r = searchOrder(design, { memoryLimit: { times1F1B: 1 }, budgetMs: 60_000, seed: 1 });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.best.source).toBe('local-search');
    expect(r.stepMs).toBeLessThan(Math.min(...r.baselines.filter((b) => b.fits).map((b) => b.stepMs)));
    expect(r.stepMs).toBeLessThan(r.heuristic!.stepMs);
    expect(r.design.directives.filter((d) => d.op === 'order')).toHaveLength(4);
  });
});

describe('what the order search refuses', () => {
  const design = unevenPipeline({ ranks: 2, microbatches: 4, F, BI, BW, p2pLatencyMs: 0 });

  it('a design without a schedule, and dualpipe’s two pipelines', () => {
    const none = searchOrder({ ...design, directives: [] }, { memoryLimit: { times1F1B: 1 } });
    expect(none).toMatchObject({ ok: false, errors: [{ path: 'directives' }] });
    const dual: Design = {
      ...design,
      directives: [{ op: 'schedule', builder: 'dualpipe', microbatches: 4 }],
    };
    const r = searchOrder(dual, { memoryLimit: { times1F1B: 1 } });
    expect(r).toMatchObject({ ok: false, errors: [{ path: 'directives[0].builder' }] });
  });

  it('a limit that is not a positive number, at its path', () => {
    const r = searchOrder(design, { memoryLimit: { times1F1B: -1 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.path).toMatch(/^memoryLimit/);
  });

  it('a limit no order fits, naming the least peak found', () => {
    const r = searchOrder(design, { memoryLimit: { bytes: 1024 } });
    expect(r).toMatchObject({
      ok: false,
      errors: [
        {
          path: 'memoryLimit',
          message: expect.stringMatching(
            /no order of this pipeline fits the limit \(the least peak found is [\d.]+ GiB\)/,
          ),
        },
      ],
    });
  });
});
