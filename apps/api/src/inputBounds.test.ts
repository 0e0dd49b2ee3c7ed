/**
 * Input that is valid JSON but hostile or careless: sizes hidden behind presets, names that are
 * not presets, wrong types, numbers too large to simulate, floods of errors. Each gets a short,
 * clear answer naming where the problem is.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, example, oneFOneB, post, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

describe('input bounds of /api/compile', () => {
  test("a preset cluster's devices count as nodes × GPUs per node against the op limit", async () => {
    const design = {
      ...example('llama3-8b-dgx-h100-pp4-1f1b'),
      cluster: { preset: 'dgx-h100', nodes: 1_000_000 },
    };
    const t0 = performance.now();
    const res = await post(t.app, '/api/compile', { design });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res).path).toBe('design.cluster.nodes');
    expect(errorOf(res).message).toMatch(/^8,000,000 devices are more than the op limit/);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  test("a transformer's layers count as the blocks they lower to against the op limit", async () => {
    const base = example('llama3-8b-dgx-h100-pp4-1f1b');
    const design = { ...base, model: { ...base.model, layers: 10_000_000 } };
    const t0 = performance.now();
    const res = await post(t.app, '/api/compile', { design });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res).path).toBe('design.model.layers');
    expect(errorOf(res).message).toMatch(/^20,000,002 blocks make at least 40,000,004 ops, over the limit/);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    test(`"${name}" is an unknown cluster preset and an unknown model preset`, async () => {
      const base = example('llama3-8b-dgx-h100-pp4-1f1b');
      const cluster = await post(t.app, '/api/compile', {
        design: { ...base, cluster: { preset: name, nodes: 1 } },
      });
      expect(cluster.statusCode).toBe(400);
      expect(errorOf(cluster).path).toBe('design.cluster.preset');
      expect(errorOf(cluster).message).toMatch(/^unknown cluster preset/);
      const model = await post(t.app, '/api/compile', {
        design: { ...base, model: { ...(base.model as object), preset: name } },
      });
      expect(model.statusCode).toBe(400);
      expect(errorOf(model).path).toBe('design.model.preset');
      expect(errorOf(model).message).toMatch(/^unknown model preset/);
    });
  }

  test('a present field of the wrong type says what it expected and got, not that it is missing', async () => {
    const d = oneFOneB(4, 8);
    const res = await post(t.app, '/api/compile', { design: { ...d, model: { ...d.model, stages: '4' } } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).all).toContainEqual({
      path: 'design.model.stages',
      message: 'expected number, got string',
    });
    const missing = await post(t.app, '/api/compile', { design: { ...d, cluster: { kind: 'ideal' } } });
    expect(errorOf(missing).all).toContainEqual({
      path: 'design.cluster.devices',
      message: 'required field missing (expected number)',
    });
  });

  test('a cost too large to simulate is a 400 naming the field, never null metrics', async () => {
    const d = oneFOneB(4, 8);
    const model = { ...d.model, costs: { F: 1e308, BI: 1, BW: 1 } };
    const res = await post(t.app, '/api/compile', { design: { ...d, model } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('design.model.costs.F');
    expect(errorOf(res).message).toMatch(/too large/);
  });

  test('an answer to 100,000 bad directives lists the first 100 errors and counts them all', async () => {
    const d = oneFOneB(4, 8);
    const directives = Array.from({ length: 100_000 }, () => ({ op: 'bogus' }));
    const res = await post(t.app, '/api/compile', { design: { ...d, directives } });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(100_000);
    const body = res.json() as { errors: unknown[]; errorCount: number };
    expect(body.errors).toHaveLength(100);
    expect(body.errorCount).toBe(100_000);
  });

  test('an error quoting a huge value quotes only its beginning', async () => {
    const d = oneFOneB(4, 8);
    const res = await post(t.app, '/api/compile', {
      design: { ...d, directives: [{ op: 'x'.repeat(1_000_000) }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(2_000);
  });
});
