import { sweep } from '@stagecraft/planner/sweep';
import { describe, expect, test } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import type { ApiResult } from '../api/designsApi.ts';
import type { PlanJob, PlanJobsClient } from '../api/planJobsApi.ts';
import { createPlannerStore, isSearching } from './planner.ts';

const design = example('1f1b-p4-m8');
const progress = (tried: number, timeLeftMs: number) => ({
  tried,
  pruned: 2 * tried,
  frontSize: 1,
  elapsedMs: 100 * tried,
  timeLeftMs,
});
const point = { layout: { pp: 4 }, design, stepMs: 33, peakMemoryBytes: 2 ** 30, fits: true };
const running = (tried: number): PlanJob => ({
  id: 'j1',
  status: 'running',
  budgetS: 5,
  progress: progress(tried, 4000),
});
const done: PlanJob = {
  id: 'j1',
  status: 'done',
  budgetS: 5,
  progress: progress(3, 0),
  result: { front: [point], best: 0, spaceSize: 10, tried: 3, pruned: 6, stoppedEarly: false },
};

/** A client answering from a script: the start, then one job state per poll; it records the calls. */
function scripted(start: ApiResult<PlanJob>, polls: PlanJob[]) {
  const calls: string[] = [];
  const client: PlanJobsClient = {
    async start(d, r) {
      calls.push(`start ${d.name} ${JSON.stringify(r)}`);
      return start;
    },
    async read(id) {
      calls.push(`read ${id}`);
      const next = polls.shift();
      return next ? { ok: true, value: next } : { ok: false, status: 404, message: 'id: no plan job j1' };
    },
    async cancel(id) {
      calls.push(`cancel ${id}`);
      return { ok: true, value: undefined };
    },
  };
  return { client, calls };
}

const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));
const noSweep = async () => [];

describe('the planner’s state', () => {
  test('a search polls its progress until it stops, then holds its front', async () => {
    const { client, calls } = scripted({ ok: true, value: running(0) }, [running(1), running(2), done]);
    const store = createPlannerStore(client, noSweep, 1);
    const seen: number[] = [];
    store.subscribe((s) => s.job && seen.push(s.job.progress.tried));
    await store.getState().start(design, { budgetS: 5 });
    expect(isSearching(store.getState().job)).toBe(true);
    for (let i = 0; i < 20 && store.getState().job?.status !== 'done'; i++) await settle(5);
    const s = store.getState();
    expect(s.job?.status).toBe('done');
    expect(s.job?.result?.front).toHaveLength(1);
    expect(s.searchedFor).toBe(design.name);
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(calls).toEqual([`start ${design.name} {"budgetS":5}`, 'read j1', 'read j1', 'read j1']);
  });

  test('a refused start keeps the API’s message and leaves no job', async () => {
    const { client } = scripted(
      {
        ok: false,
        status: 400,
        message: 'budgetS: 500 s is longer than this server’s longest search, 120 s',
      },
      [],
    );
    const store = createPlannerStore(client, noSweep, 1);
    await store.getState().start(design, { budgetS: 500 });
    expect(store.getState()).toMatchObject({
      job: null,
      starting: false,
      error: 'budgetS: 500 s is longer than this server’s longest search, 120 s',
    });
  });

  test('Cancel asks the API and shows the search stopping until the API says it stopped', async () => {
    const cancelled: PlanJob = { ...done, status: 'cancelled' };
    const { client, calls } = scripted({ ok: true, value: running(0) }, [running(1), cancelled]);
    const store = createPlannerStore(client, noSweep, 20);
    await store.getState().start(design, { budgetS: 5 });
    await store.getState().cancel();
    expect(store.getState().job?.status).toBe('cancelling');
    for (let i = 0; i < 40 && store.getState().job?.status !== 'cancelled'; i++) await settle(10);
    expect(store.getState().job?.status).toBe('cancelled');
    expect(calls.slice(0, 2)).toEqual([`start ${design.name} {"budgetS":5}`, 'cancel j1']);
  });

  test('a job the API no longer knows ends the polling with its message', async () => {
    const { client } = scripted({ ok: true, value: running(0) }, []);
    const store = createPlannerStore(client, noSweep, 1);
    await store.getState().start(design, { budgetS: 5 });
    for (let i = 0; i < 20 && store.getState().error === null; i++) await settle(5);
    expect(store.getState()).toMatchObject({ error: 'id: no plan job j1', job: { status: 'failed' } });
  });

  test('a sweep of the microbatches holds step, bubble and peak memory per value: 1F1B p=4 at (m+3)·3 ms', async () => {
    const { client } = scripted({ ok: true, value: running(0) }, []);
    const store = createPlannerStore(client, async (d, axis, values) => sweep(d, axis, values), 1);
    await store.getState().runSweep(design, 'microbatches', [4, 8]);
    const s = store.getState().sweep!;
    expect(s.designName).toBe(design.name);
    expect(s.points.map((p) => p.stepMs)).toEqual([21, 33]);
    expect(s.points[0]!.bubbleRatio).toBeCloseTo(9 / 21);
    expect(s.points.every((p) => (p.peakMemoryBytes ?? 0) > 0)).toBe(true);
  });

  test('a sweep that throws says so and keeps no stale points', async () => {
    const { client } = scripted({ ok: true, value: running(0) }, []);
    const store = createPlannerStore(
      client,
      async () => {
        throw new Error('worker gone');
      },
      1,
    );
    await store.getState().runSweep(design, 'stages', [2]);
    expect(store.getState()).toMatchObject({
      sweep: null,
      sweeping: false,
      error: 'the sweep failed: worker gone',
    });
  });
});
