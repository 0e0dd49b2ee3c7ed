import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, oneFOneB, post, type TestApp, testApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('POST /api/plan-jobs refuses what it cannot search, naming the field', () => {
  test.each([
    [{}, 400, 'design', /required field missing/],
    [
      { design: oneFOneB(4, 8), budgetS: 500 },
      400,
      'budgetS',
      /500 s is longer than this server's longest search, 120 s/,
    ],
    [{ design: oneFOneB(4, 8), budgetS: -1 }, 400, 'budgetS', /./],
    [{ design: oneFOneB(4, 8), maxMemoryGiB: 0 }, 400, 'maxMemoryGiB', /./],
    [{ design: oneFOneB(4, 8), maxMemoryGiB: '80' }, 400, 'maxMemoryGiB', /expected number/],
    [{ design: oneFOneB(4, 8), globalBatch: 2.5 }, 400, 'globalBatch', /./],
    [{ design: oneFOneB(4, 8), budget: 5 }, 400, 'budget', /./],
    [
      { design: { ...oneFOneB(4, 8), directives: [{ op: 'schedule', builder: 'nope', microbatches: 8 }] } },
      400,
      'design.directives[0].builder',
      /./,
    ],
  ])('%# → %i at %s', async (body, status, path, message) => {
    const res = await post(t.app, '/api/plan-jobs', body);
    expect(res.statusCode).toBe(status);
    const e = errorOf(res);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(message);
  });

  test('a body that is not an object is a 400 for the request as a whole', async () => {
    const res = await post(t.app, '/api/plan-jobs', [1]);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe('expected a JSON object as the request body');
  });
});

describe('GET and DELETE /api/plan-jobs/:id', () => {
  test('an id that is not one the API hands out is a 400 at id; an unknown one a 404', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const bad = await t.app.inject({ method, url: '/api/plan-jobs/..%2Fetc' });
      expect(bad.statusCode).toBe(400);
      expect(errorOf(bad).path).toBe('id');
      const unknown = await t.app.inject({ method, url: `/api/plan-jobs/${UNKNOWN}` });
      expect(unknown.statusCode).toBe(404);
      expect(errorOf(unknown)).toMatchObject({
        path: 'id',
        message: expect.stringContaining(`no plan job ${UNKNOWN}`),
      });
    }
  });
});

describe('the jobs kept', () => {
  test('a second search while one runs is a 503 with Retry-After; of the finished, only the latest are kept', async () => {
    const small = await testApp({ limits: { planJobsKept: 1 } });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await post(small.app, '/api/plan-jobs', { design: oneFOneB(4, 8), budgetS: 0.5 });
        expect(res.statusCode).toBe(202);
        const { id } = res.json() as { id: string };
        ids.push(id);
        // Its thread is still loading the compiler: the search counts as running.
        const busy = await post(small.app, '/api/plan-jobs', { design: oneFOneB(4, 8), budgetS: 0.5 });
        expect(busy.statusCode).toBe(503);
        expect(errorOf(busy).path).toBe('');
        expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        for (let k = 0; k < 600; k++) {
          const job = await small.app.inject({ method: 'GET', url: `/api/plan-jobs/${id}` });
          if (!['running', 'cancelling'].includes((job.json() as { status: string }).status)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect((await small.app.inject({ method: 'GET', url: `/api/plan-jobs/${ids[0]}` })).statusCode).toBe(
        404,
      );
      expect((await small.app.inject({ method: 'GET', url: `/api/plan-jobs/${ids[1]}` })).statusCode).toBe(
        200,
      );
    } finally {
      await small.close();
    }
  });
});
