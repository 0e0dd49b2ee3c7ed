/** A big design's answer is bounded by default, and a caller who wants every part can ask for it. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oneFOneB, post, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  // 1F1B p=4 m=64 is about 1,600 ops: over this bound, as p=32 m=2048 is over the default one.
  t = await testApp({ limits: { detailOps: 1_000 } });
});
afterAll(async () => t.close());

describe('the size of a compile answer', () => {
  test('a design over the detail bound gets metrics and program by default, and is told what was left out', async () => {
    const res = await post(t.app, '/api/compile', { design: oneFOneB(4, 64, 'big') });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, unknown> & {
      passes: unknown[];
      simulation: Record<string, unknown>;
    };
    expect(body.omitted).toEqual(['snapshots', 'timeline', 'plan', 'dag']);
    expect(body.dag).toBeUndefined();
    expect(body.plan).toBeUndefined();
    expect(body.passes).toEqual([]);
    expect(body.metrics).toMatchObject({ name: 'big' });
    expect(body.program).toBeDefined();
  });

  test('a caller asks for the parts of a big answer it wants with include', async () => {
    const res = await post(t.app, '/api/compile', {
      design: oneFOneB(4, 64, 'big'),
      include: { dag: true, plan: true },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Record<string, unknown>;
    expect(body.omitted).toEqual(['snapshots', 'timeline']);
    expect(body.dag).toBeDefined();
    expect(body.plan).toBeDefined();
    // The same compile asked for differently is cached apart: each answer names its own omissions.
    const again = await post(t.app, '/api/compile', { design: oneFOneB(4, 64, 'big') });
    expect((again.json() as { omitted: string[] }).omitted).toEqual(['snapshots', 'timeline', 'plan', 'dag']);
  });

  test('a small design still gets every part by default and no omitted field', async () => {
    const res = await post(t.app, '/api/compile', { design: oneFOneB(2, 4) });
    const body = res.json() as Record<string, unknown>;
    expect(body.omitted).toBeUndefined();
    expect(body.dag).toBeDefined();
    expect(body.plan).toBeDefined();
  });
});
