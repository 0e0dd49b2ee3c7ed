import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { LayoutRequestError, searchLayouts } from '../index.ts';
import { simulateDesign } from '../simulatedDesign.ts';
import { layoutDesign } from './layoutDesign.ts';
import { layoutSpace } from './layoutSpace.ts';

/** A small transformer on one node of 4 GPUs: a space the search covers in seconds. */
const small: Design = {
  format: 'stagecraft/design@3',
  name: 'small',
  model: {
    kind: 'transformer',
    layers: 4,
    hidden: 512,
    ffnHidden: 1536,
    heads: 8,
    kvHeads: 4,
    vocab: 8192,
    seqLen: 1024,
    microbatchSize: 1,
  },
  cluster: { preset: 'dgx-h100', nodes: 1 },
  directives: [],
} as Design;

describe('the layout search', () => {
  it('keeps a Pareto front of layouts that fit, each one a design that simulates to its figures', async () => {
    const r = await searchLayouts({ design: small, globalBatch: 8, budgetMs: 120_000 }, { workers: 0 });
    expect(r.stoppedEarly).toBe(false);
    expect(r.tried + r.pruned).toBe(r.spaceSize);
    expect(r.front[0]).toBe(r.best);
    for (let i = 1; i < r.front.length; i++) {
      // Slower points of the front hold less memory: none dominates another.
      expect(r.front[i]!.stepMs).toBeGreaterThanOrEqual(r.front[i - 1]!.stepMs);
      expect(r.front[i]!.peakMemoryBytes).toBeLessThan(r.front[i - 1]!.peakMemoryBytes);
    }
    const again = simulateDesign(r.best.design);
    if (!again.ok) throw new Error(JSON.stringify(again.errors));
    expect(again.stepMs).toBeCloseTo(r.best.stepMs, 6);
    const l = r.best.layout;
    expect(l.pp * l.dp * l.tp).toBe(8);
    expect(l.microbatches * l.microbatchSize * l.dp).toBe(8);
  }, 300_000);

  it('gives the same front for the same seed, on worker threads as on the caller’s', async () => {
    const request = { design: small, globalBatch: 8, budgetMs: 120_000, seed: 7 };
    const here = await searchLayouts(request, { workers: 0 });
    const threads = await searchLayouts(request, { workers: 1 });
    const figures = (r: typeof here) => r.front.map((p) => [p.design.name, p.stepMs, p.peakMemoryBytes]);
    expect(figures(threads)).toEqual(figures(here));
  }, 300_000);

  it('stops when its signal aborts, with the best found so far', async () => {
    const abort = new AbortController();
    const r = await searchLayouts(
      { design: small, globalBatch: 8, budgetMs: 120_000 },
      {
        workers: 0,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.frontSize > 0) abort.abort();
        },
      },
    );
    expect(r.stoppedEarly).toBe(true);
    expect(r.front.length).toBeGreaterThan(0);
  }, 300_000);

  it('refuses a model it cannot lay out, and a limit nothing fits, naming the field', async () => {
    const synthetic = {
      ...small,
      model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
    } as Design;
    await expect(searchLayouts({ design: synthetic, globalBatch: 8 }, { workers: 0 })).rejects.toThrow(
      /design\.model\.kind: the layout search lays out transformer models/,
    );
    await expect(
      searchLayouts({ design: small, globalBatch: 8, maxMemoryBytes: 1024 }, { workers: 0 }),
    ).rejects.toThrow(LayoutRequestError);
    await expect(searchLayouts({ design: small }, { workers: 0 })).rejects.toThrow(/globalBatch: .*give one/);
  });
});

describe('the layout space', () => {
  it('prunes what breaks a structural rule, and writes the rest as designs that compile', () => {
    const facts = {
      devices: 8,
      gpusPerNode: 8,
      layers: 4,
      heads: 8,
      kvHeads: 4,
      globalBatch: 8,
      microbatchSizes: [1, 2],
    };
    const entries = [...layoutSpace(facts)];
    const reasons = new Set(entries.flatMap((e) => (e.pruned ? [e.pruned] : [])));
    expect(reasons).toContain('more pipeline stages than layers');
    expect(reasons).toContain('ZeRO shards over data replicas: none here');
    const kept = entries.find(
      (e) => !e.pruned && e.layout.pp === 2 && e.layout.tp === 2 && e.layout.zero === 1,
    )!;
    const d = layoutDesign(small, kept.layout);
    if (typeof d === 'string') throw new Error(d);
    expect(simulateDesign(d).ok).toBe(true);
  });
});
