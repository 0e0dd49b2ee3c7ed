import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, example, oneFOneB, post, type TestApp, testApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('POST /api/plan-jobs refuses what it cannot search, naming the field', () => {
  test.each([
    ['no design', {}, 400, 'design', /required field missing/],
    [
      "a budget over the server's",
      { design: oneFOneB(4, 8), budgetS: 500 },
      400,
      'budgetS',
      /500 s is longer than this server's longest search, 120 s/,
    ],
    ['a negative budget', { design: oneFOneB(4, 8), budgetS: -1 }, 400, 'budgetS', /./],
    ['no memory', { design: oneFOneB(4, 8), maxMemoryGiB: 0 }, 400, 'maxMemoryGiB', /./],
    [
      'memory as text',
      { design: oneFOneB(4, 8), maxMemoryGiB: '80' },
      400,
      'maxMemoryGiB',
      /expected number/,
    ],
    ['half a sequence', { design: oneFOneB(4, 8), globalBatch: 2.5 }, 400, 'globalBatch', /./],
    ['an unknown field', { design: oneFOneB(4, 8), budget: 5 }, 400, 'budget', /./],
    [
      'an unknown builder',
      { design: { ...oneFOneB(4, 8), directives: [{ op: 'schedule', builder: 'nope', microbatches: 8 }] } },
      400,
      'design.directives[0].builder',
      /./,
    ],
  ])('%s', async (_what, body, status, path, message) => {
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
  }, 120_000);
});

interface JobBody {
  id: string;
  status: string;
  budgetS: number;
  progress: { tried: number; pruned: number; frontSize: number; elapsedMs: number; timeLeftMs: number };
  result?: {
    front: {
      layout: Record<string, unknown>;
      design: unknown;
      stepMs: number;
      peakMemoryBytes: number;
      fits: boolean;
    }[];
    best: number | null;
    spaceSize: number;
    tried: number;
    pruned: number;
    stoppedEarly: boolean;
  };
  error?: { path: string; message: string };
}

const readJob = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/plan-jobs/${id}` })).json() as JobBody;

/** Polls the job until it stops, or gives up after `ms`. */
async function stopped(id: string, ms = 60_000): Promise<JobBody> {
  const until = Date.now() + ms;
  for (;;) {
    const job = await readJob(id);
    if (!['running', 'cancelling'].includes(job.status) || Date.now() > until) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The search's subject: a small real model on one DGX node, laid out in a few seconds. */
const SUBJECT = example('qwen3-1b-pp2-dp2-ep2-1f1b');

describe('a layout search as a job', () => {
  test('202 with its Location at once; progress while it runs; its front once done, each point a design that compiles', async () => {
    const res = await post(t.app, '/api/plan-jobs', { design: SUBJECT, budgetS: 10 });
    expect(res.statusCode).toBe(202);
    const started = res.json() as JobBody;
    expect(res.headers.location).toBe(`/api/plan-jobs/${started.id}`);
    expect(started).toMatchObject({
      status: 'running',
      budgetS: 10,
      progress: { tried: 0, timeLeftMs: 10_000 },
    });
    const job = await stopped(started.id);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe('done');
    const result = job.result!;
    expect(result.front.length).toBeGreaterThan(0);
    expect(result.tried).toBeGreaterThan(0);
    expect(result.spaceSize).toBeGreaterThanOrEqual(result.tried);
    expect(job.progress).toMatchObject({
      tried: result.tried,
      pruned: result.pruned,
      frontSize: result.front.length,
      timeLeftMs: 0,
    });
    expect(result.best).not.toBeNull();
    // The front by step time, each point faster than the next but holding more memory.
    for (let i = 1; i < result.front.length; i++) {
      expect(result.front[i]!.stepMs).toBeGreaterThanOrEqual(result.front[i - 1]!.stepMs);
      expect(result.front[i]!.peakMemoryBytes).toBeLessThanOrEqual(result.front[i - 1]!.peakMemoryBytes);
    }
    const best = result.front[result.best!]!;
    const compiled = await post(t.app, '/api/compile', {
      design: best.design,
      include: { dag: false, plan: false, timeline: false, snapshots: 'none' },
    });
    expect(compiled.statusCode).toBe(200);
    expect((compiled.json() as { metrics: { makespanMs: number } }).metrics.makespanMs).toBeCloseTo(
      best.stepMs,
      6,
    );
    // A finished job is forgotten on DELETE: 204, then 404.
    expect((await t.app.inject({ method: 'DELETE', url: `/api/plan-jobs/${job.id}` })).statusCode).toBe(204);
    expect((await t.app.inject({ method: 'GET', url: `/api/plan-jobs/${job.id}` })).statusCode).toBe(404);
  }, 120_000);

  test('one search at a time (503 with Retry-After); a compile answers promptly meanwhile; DELETE stops it with its front so far', async () => {
    const res = await post(t.app, '/api/plan-jobs', { design: SUBJECT, budgetS: 60 });
    expect(res.statusCode).toBe(202);
    const { id } = res.json() as JobBody;
    const busy = await post(t.app, '/api/plan-jobs', { design: SUBJECT, budgetS: 5 });
    expect(busy.statusCode).toBe(503);
    expect(errorOf(busy).message).toMatch(/1 search is running, the most this server runs at once/);
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    // Once the search is under way, a compile goes to the pool and answers within two seconds
    // (about 50 ms on an idle machine), long before the search's minute is over.
    for (let i = 0; i < 300 && (await readJob(id)).progress.tried === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await readJob(id)).progress.tried).toBeGreaterThan(0);
    const t0 = performance.now();
    const compiled = await post(t.app, '/api/compile', {
      design: oneFOneB(4, 11),
      include: { dag: false, plan: false, timeline: false, snapshots: 'none' },
    });
    const compileMs = performance.now() - t0;
    expect(compiled.statusCode).toBe(200);
    expect(compileMs).toBeLessThan(2_000);
    expect((await readJob(id)).status).toBe('running');
    const cancel = await t.app.inject({ method: 'DELETE', url: `/api/plan-jobs/${id}` });
    expect(cancel.statusCode).toBe(202);
    expect((cancel.json() as JobBody).status).toBe('cancelling');
    const job = await stopped(id, 10_000);
    expect(job.status).toBe('cancelled');
    expect(job.result?.stoppedEarly).toBe(true);
    expect(job.result!.front.length).toBeGreaterThan(0);
    // Room again for the next search.
    const next = await post(t.app, '/api/plan-jobs', { design: SUBJECT, budgetS: 1 });
    expect(next.statusCode).toBe(202);
    await stopped((next.json() as JobBody).id);
  }, 180_000);
});
