/**
 * The server starts its compile workers once it listens, not beside its own start (on two cores
 * they slowed it): a compile sent before then waits in the queue and is answered once they load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { oneFOneB } from '../../test/harness.ts';
import { BRIEF_INCLUDE } from '../compileResponse.ts';
import { withLimits } from '../limits.ts';
import { startServer } from '../server.ts';
import { CompilePool } from './compilePool.ts';

const scratch = mkdtempSync(join(tmpdir(), 'stagecraft-deferred-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a deferred pool runs nothing until its workers start, then answers what was queued', async () => {
  // A limit long enough for a worker to load from the sources on a loaded machine.
  const pool = CompilePool.forLimits(withLimits({ workers: 1, compileMs: 100_000 }), true);
  try {
    expect(pool.size).toBe(1);
    let answered = false;
    const answer = pool
      .run({ task: { kind: 'compile', design: oneFOneB(2, 4), include: BRIEF_INCLUDE, head: '{' } })
      .finally(() => {
        answered = true;
      });
    await new Promise((r) => setTimeout(r, 500));
    expect(answered).toBe(false);
    pool.startWorkers();
    expect((await answer).ok).toBe(true);
  } finally {
    await pool.close();
  }
}, 120_000);

test('the server answers its health at once and its first compile once a worker has loaded', async () => {
  const server = await startServer({
    port: 0,
    db: join(scratch, 'designs.sqlite'),
    seedDir: scratch,
    // Loading a worker from the sources on a loaded machine can take longer than the default limit.
    limits: { compileMs: 100_000 },
  });
  try {
    const health = await fetch(new URL('/api/health', server.url));
    expect(health.status).toBe(200);
    expect(((await health.json()) as { workers: number }).workers).toBe(server.pool.size);
    const res = await fetch(new URL('/api/compile', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ design: oneFOneB(2, 4) }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
  } finally {
    await server.close();
  }
}, 120_000);
