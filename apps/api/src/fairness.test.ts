/**
 * The compile pool shares its workers fairly: large designs cannot take every worker, waiting
 * counts in the time limit, and a full queue says when to come back.
 */
import { describe, expect, test } from 'vitest';
import { errorOf, oneFOneB, post, testApp } from '../test/harness.ts';

describe('a fair compile pool', () => {
  test('a small compile completes promptly while two big ones run', async () => {
    const t = await testApp({ limits: { workers: 2, largeOps: 10_000 } });
    try {
      let bigDone = 0;
      // Each about 300,000 ops: seconds of work, far more than the small one.
      const bigs = [0, 1].map((i) =>
        post(t.app, '/api/compile', {
          design: oneFOneB(16, 2048, `big ${i}`),
          include: { snapshots: 'none', timeline: false, dag: false, plan: false },
        }).then((r) => {
          bigDone++;
          return r;
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      const small = await post(t.app, '/api/compile', { design: oneFOneB(4, 8) });
      const ms = performance.now() - t0;
      expect(small.statusCode).toBe(200);
      expect(bigDone).toBe(0);
      expect(ms).toBeLessThan(2_000);
      void bigs;
    } finally {
      await t.close();
    }
  }, 30_000);

  test('time spent waiting for a worker counts in the time limit', async () => {
    const t = await testApp({ limits: { workers: 1, compileMs: 500 } });
    try {
      const big = post(t.app, '/api/compile', {
        design: oneFOneB(16, 4096, 'big'),
        include: { snapshots: 'none', timeline: false, dag: false, plan: false },
      });
      await new Promise((r) => setTimeout(r, 20));
      const t0 = performance.now();
      const small = await post(t.app, '/api/compile', { design: oneFOneB(2, 2) });
      const ms = performance.now() - t0;
      expect(small.statusCode).toBe(503);
      expect(errorOf(small).message).toBe(
        'the server is busy: the compile waited for a worker for the whole time limit of 500 ms; try again shortly',
      );
      expect(Number(small.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(ms).toBeLessThan(1_500);
      expect((await big).statusCode).toBe(503);
    } finally {
      await t.close();
    }
  }, 30_000);

  test('a compile refused by a full queue gets 503 with a Retry-After in seconds', async () => {
    const t = await testApp({ limits: { workers: 1, queueLength: 1 } });
    try {
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) => post(t.app, '/api/compile', { design: oneFOneB(8, 64, `full ${i}`) })),
      );
      const refused = answers.filter((a) => a.statusCode === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(errorOf(r).message).toMatch(/^the server is busy \(1 compiles waiting\)/);
        expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      }
    } finally {
      await t.close();
    }
  });
});
