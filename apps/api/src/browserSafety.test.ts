/**
 * What keeps a browser safe with Stagecraft open: the page runs only its own code and cannot be
 * framed, answers are never sniffed into HTML, and only requests addressed to loopback names
 * are answered.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, oneFOneB, post, type TestApp, testApp } from '../test/harness.ts';
import { buildApp } from './app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

describe('browser safety', () => {
  test("the web app's page sends a Content-Security-Policy that forbids framing", async () => {
    const res = await t.app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  test('JSON answers, errors and exported files are sent with nosniff', async () => {
    const answers = [
      await t.app.inject('/api/health'),
      await t.app.inject('/api/designs/nope'),
      await post(t.app, '/api/compile', { design: oneFOneB(2, 2) }),
      await post(t.app, '/api/export', { design: oneFOneB(2, 2), format: 'chrome-trace' }),
    ];
    for (const res of answers)
      expect(res.headers['x-content-type-options'], res.body.slice(0, 80)).toBe('nosniff');
  });

  test('a Host is a loopback name and a numeric port, exactly: "localhost:evil" is refused', async () => {
    const app = await buildApp({
      store: t.store,
      pool: t.pool,
      allowedHosts: ['127.0.0.1', 'localhost', '::1'],
    });
    try {
      for (const host of ['localhost:evil', 'localhost:80:80', 'localhost:', '[::1]evil', 'localhost x']) {
        const res = await app.inject({ url: '/api/health', headers: { host } });
        expect(res.statusCode, host).toBe(403);
        expect(errorOf(res).path).toBe('');
      }
      for (const host of ['localhost:4173', '127.0.0.1', '[::1]:80']) {
        expect((await app.inject({ url: '/api/health', headers: { host } })).statusCode, host).toBe(200);
      }
    } finally {
      await app.close();
    }
  });
});
