/** The transport edge: content types, sizes, depth, unknown routes, time limits, supersede, health. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, oneFOneB, post, type TestApp, testApp } from '../test/harness.ts';
import { buildApp } from './app.ts';
import { compileFailure } from './compileResponse.ts';
import { WebApp } from './webApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ limits: { bodyBytes: 64 * 1024, jsonDepth: 16 } });
});
afterAll(async () => t.close());

const json = { 'content-type': 'application/json' };

describe('the request edge', () => {
  test('GET /api/health says the service is up', async () => {
    const res = await t.app.inject('/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      version: '0.1.0',
      workers: 1,
      uptimeS: expect.any(Number),
      rssBytes: expect.any(Number),
    });
  });

  test('a body larger than the limit is a 413 naming the limit and the size', async () => {
    const payload = JSON.stringify({ design: oneFOneB(2, 2), pad: 'x'.repeat(70_000) });
    const res = await t.app.inject({ method: 'POST', url: '/api/compile', payload, headers: json });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res)).toMatchObject({
      path: '',
      message: `the request body (${payload.length.toLocaleString('en-US')} bytes) is larger than the limit of 64 KiB`,
    });
  });

  test('a body that is not application/json is a 415', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/compile',
        payload: '{}',
        headers: { 'content-type': type },
      });
      expect(res.statusCode).toBe(415);
      expect(errorOf(res).message).toMatch(/must be application\/json/);
    }
  });

  test('invalid JSON is a 400 saying where', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/compile',
      payload: '{"design": {]',
      headers: json,
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({
      path: '',
      message: expect.stringMatching(/^invalid JSON at line 1, column 13/),
    });
    const empty = await t.app.inject({ method: 'POST', url: '/api/compile', payload: '', headers: json });
    expect(empty.statusCode).toBe(400);
  });

  test('JSON nested deeper than the limit is a 400 naming the limit', async () => {
    const deep = `${'['.repeat(40)}${']'.repeat(40)}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/compile',
      payload: `{"design": ${deep}}`,
      headers: json,
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe('JSON nesting deeper than 16 levels');
  });

  test('a __proto__ key is a 400 naming where it is', async () => {
    const payload = '{"design": {"directives": [{"filter": {"__proto__": {"polluted": 1}}}]}}';
    const res = await t.app.inject({ method: 'POST', url: '/api/compile', payload, headers: json });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('design.directives[0].filter.__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a body that is not an object is a 400', async () => {
    for (const payload of ['[]', '"x"', '42', 'null']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/designs', payload, headers: json });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).message).toMatch(/JSON object/);
    }
    const none = await t.app.inject({ method: 'POST', url: '/api/compile' });
    expect(none.statusCode).toBe(400);
  });

  test('an unknown API route or method is a 404 in the error shape', async () => {
    for (const [method, url] of [
      ['GET', '/api/nope'],
      ['POST', '/api/health'],
      ['GET', '/api/compile'],
      ['PATCH', '/api/designs/x'],
      ['GET', '/api'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(errorOf(res).message).toMatch(/^no route/);
    }
  });

  test('a plan that fails validation is a 422 with paths into the plan', () => {
    const r = compileFailure({
      ok: false,
      errors: [{ path: 'devices[1].streams[0].instructions[4]', message: 'RECV without a matching SEND' }],
      snapshots: [
        { pass: 'lower-plan', ms: 0 },
        { pass: 'validate-plan', ms: 0 },
      ],
    });
    expect(r).toEqual({
      ok: false,
      status: 422,
      errors: [
        { path: 'plan.devices[1].streams[0].instructions[4]', message: 'RECV without a matching SEND' },
      ],
    });
  });
});

describe('a server on loopback', () => {
  test('answers requests addressed to a loopback name and refuses any other Host (DNS rebinding)', async () => {
    const store = t.store;
    const app = await buildApp({ store, pool: t.pool, allowedHosts: ['127.0.0.1', 'localhost', '::1'] });
    try {
      for (const host of ['127.0.0.1:4173', 'localhost', 'LOCALHOST:80', '[::1]:4173']) {
        expect((await app.inject({ url: '/api/health', headers: { host } })).statusCode, host).toBe(200);
      }
      for (const host of ['evil.example:4173', 'evil.example', '127.0.0.1.evil.example']) {
        const res = await app.inject({ url: '/api/designs', headers: { host } });
        expect(res.statusCode, host).toBe(403);
        expect(errorOf(res).message).toMatch(/must be addressed to 127\.0\.0\.1 or localhost or ::1/);
      }
    } finally {
      await app.close();
    }
  });
});

describe('the compile pool', () => {
  test('a compile over the time limit is a 503 naming the limit, logged as a timeout; the worker is replaced', async () => {
    const log: string[] = [];
    const slow = await testApp({ limits: { compileMs: 1 }, log });
    try {
      const res = await post(slow.app, '/api/compile', { design: oneFOneB(8, 64) });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res).message).toBe('the compile took longer than the time limit of 1 ms');
      const logged = log.map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string });
      expect(logged).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'timeout',
          reason: 'the compile took longer than the time limit of 1 ms',
        }),
      ]);
      expect(log.join('')).not.toMatch(/internal error|stack/);
      expect(slow.pool.replaced).toBe(1);
      expect(slow.pool.size).toBe(1);
      expect((await slow.app.inject('/api/health')).statusCode).toBe(200);
    } finally {
      await slow.close();
    }
  });

  test('compiles beyond the queue bound are a 503 saying the server is busy', async () => {
    const busy = await testApp({ limits: { queueLength: 1 } });
    try {
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) => post(busy.app, '/api/compile', { design: oneFOneB(8, 64, `busy ${i}`) })),
      );
      const codes = answers.map((a) => a.statusCode).sort();
      expect(codes).toContain(200);
      expect(codes).toContain(503);
      const refused = answers.find((a) => a.statusCode === 503)!;
      expect(errorOf(refused).message).toMatch(/^the server is busy \(1 compiles waiting\)/);
    } finally {
      await busy.close();
    }
  });

  test('a newer revision supersedes one that is running or queued: both older answer 409', async () => {
    const two = await testApp({ limits: { workers: 1 } });
    try {
      const big = oneFOneB(8, 128, 'big');
      const r1 = post(two.app, '/api/compile', { design: big, designId: 'd', revision: 1 });
      const r2 = post(two.app, '/api/compile', {
        design: { ...big, name: 'big 2' },
        designId: 'd',
        revision: 2,
      });
      await new Promise((r) => setTimeout(r, 20));
      const r3 = post(two.app, '/api/compile', { design: oneFOneB(2, 2), designId: 'd', revision: 3 });
      const [a, b, c] = await Promise.all([r1, r2, r3]);
      expect(a.statusCode).toBe(409);
      expect(errorOf(a)).toMatchObject({ path: 'revision', message: 'superseded by revision 2' });
      expect(b.statusCode).toBe(409);
      expect(errorOf(b)).toMatchObject({ path: 'revision', message: 'superseded by revision 3' });
      expect(c.statusCode).toBe(200);
      // Other designs are not affected.
      expect(
        (await post(two.app, '/api/compile', { design: oneFOneB(2, 2), designId: 'e', revision: 1 }))
          .statusCode,
      ).toBe(200);
    } finally {
      await two.close();
    }
  });
});

describe('the web app', () => {
  test('until the web app is built every page says so, and /api/ stays JSON', async () => {
    const res = await t.app.inject('/designs/1f1b');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/web app is not built/);
  });

  test('built files are served from the table read at start, index.html for unknown paths, never other files', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'stagecraft-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(dist, 'assets', 'main-abc123.js'), 'console.log(1)');
    const web = WebApp.load(dist);
    writeFileSync(join(dist, 'later.txt'), 'written after start');
    const w = await testApp({ web });
    try {
      const index = await w.app.inject('/');
      expect(index.body).toBe('<!doctype html><title>app</title>');
      expect(index.headers['cache-control']).toBe('no-cache');
      const js = await w.app.inject('/assets/main-abc123.js?v=1');
      expect(js.headers['content-type']).toMatch(/^text\/javascript/);
      expect(js.headers['cache-control']).toMatch(/immutable/);
      expect(js.body).toBe('console.log(1)');
      for (const url of [
        '/later.txt',
        '/../package.json',
        '/assets/../../etc/passwd',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/compare/a/b',
      ]) {
        const res = await w.app.inject(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.body, url).toBe('<!doctype html><title>app</title>');
      }
      const malformed = await w.app.inject('/%E0%A4%A');
      expect(malformed.statusCode).toBe(400);
      expect(errorOf(malformed).message).toMatch(/URL is not valid/);
      const long = await w.app.inject(`/api/designs/${'a'.repeat(300)}/versions`);
      expect(long.statusCode).toBeGreaterThanOrEqual(400);
      expect(long.statusCode).toBeLessThan(500);
      errorOf(long);
      const head = await w.app.inject({ method: 'HEAD', url: '/assets/main-abc123.js' });
      expect(head.statusCode).toBe(200);
      expect((await w.app.inject('/api/unknown')).statusCode).toBe(404);
    } finally {
      await w.close();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
