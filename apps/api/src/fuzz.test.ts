/**
 * Thousands of malformed and random requests across the routes: each is answered with a 4xx in
 * the error shape (never a 500, never a stack), and the server is healthy afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, example, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ limits: { workers: 1, maxOps: 20_000, bodyBytes: 256 * 1024 } });
  await t.app.inject({
    method: 'PUT',
    url: '/api/designs/kept',
    payload: JSON.stringify({ design: example('1f1b-p4-m8') }),
    headers: { 'content-type': 'application/json' },
  });
});
afterAll(async () => t.close());

type Method = 'POST' | 'PUT' | 'GET' | 'DELETE';
const routes: fc.Arbitrary<[Method, string]> = fc.oneof(
  fc.constant<[Method, string]>(['POST', '/api/compile']),
  fc.constant<[Method, string]>(['POST', '/api/export']),
  fc.constant<[Method, string]>(['POST', '/api/designs']),
  fc.constant<[Method, string]>(['PUT', '/api/designs/fuzzed']),
);

/** Asserts a reply is a client error in the API's shape. */
function clientError(res: { statusCode: number; body: string; json(): unknown }, what: string): void {
  expect(res.statusCode, `${what} → ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, `${what} → ${res.body.slice(0, 200)}`).toBeLessThan(500);
  expect(res.body).not.toMatch(/\.ts:\d+|at [\w.]+ \(/);
  errorOf(res);
}

async function send(method: Method, url: string, payload: string, type = 'application/json') {
  return t.app.inject({ method, url, payload, headers: { 'content-type': type } });
}

/** A valid design with one value somewhere replaced, or a field added or dropped. */
function mutate(doc: unknown, path: number[], replacement: unknown, drop: boolean): unknown {
  if (path.length === 0 || doc === null || typeof doc !== 'object') return replacement;
  const keys = Object.keys(doc);
  if (keys.length === 0) return replacement;
  const k = keys[path[0]! % keys.length]!;
  const copy: Record<string, unknown> = Array.isArray(doc)
    ? ([...doc] as unknown as Record<string, unknown>)
    : { ...doc };
  if (drop && path.length === 1 && !Array.isArray(doc)) delete copy[k];
  else copy[k] = mutate((doc as Record<string, unknown>)[k], path.slice(1), replacement, drop);
  return copy;
}

const seedDesigns = ['1f1b-p4-m8', 'manual-order-p2-m4', 'dualpipe-p4-m8', 'zbv-p4-m8'].map(example);

describe('fuzzed requests', () => {
  test('bodies that are not JSON are a 400', async () => {
    await fc.assert(
      fc.asyncProperty(routes, fc.string({ maxLength: 200 }), async ([method, url], text) => {
        let isJson = true;
        try {
          JSON.parse(text);
        } catch {
          isJson = false;
        }
        fc.pre(!isJson);
        const res = await send(method, url, text);
        expect(res.statusCode).toBe(400);
        clientError(res, text);
      }),
      { numRuns: 1000 },
    );
  });

  test('random JSON values are a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(routes, fc.jsonValue({ maxDepth: 6 }), async ([method, url], value) => {
        clientError(await send(method, url, JSON.stringify(value)), JSON.stringify(value).slice(0, 100));
      }),
      { numRuns: 1000 },
    );
  });

  test('random objects with a design field of random JSON are a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        routes,
        fc.jsonValue({ maxDepth: 5 }),
        fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })),
        async ([method, url], design, extra) => {
          const body = { ...(extra ?? {}), design };
          clientError(await send(method, url, JSON.stringify(body)), JSON.stringify(body).slice(0, 100));
        },
      ),
      { numRuns: 600 },
    );
  });

  test('valid designs with one value replaced or dropped never break the server', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...seedDesigns),
        fc.array(fc.nat(20), { minLength: 1, maxLength: 6 }),
        fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: -3, max: 1e9 }), fc.constant('*')),
        fc.boolean(),
        fc.constantFrom('/api/compile', '/api/export'),
        async (design, path, replacement, drop, url) => {
          const body =
            url === '/api/export'
              ? { design: mutate(design, path, replacement, drop), format: 'plan' }
              : { design: mutate(design, path, replacement, drop) };
          const res = await send('POST', url, JSON.stringify(body));
          if (res.statusCode !== 200) clientError(res, JSON.stringify(body).slice(0, 300));
        },
      ),
      { numRuns: 400 },
    );
  });

  test('random content types, ids and versions in URLs are a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 80 }),
        fc.string({ maxLength: 12 }),
        fc.constantFrom(
          'text/plain',
          'application/xml',
          'application/jsonx',
          'image/png',
          'application/x-www-form-urlencoded',
        ),
        async (id, version, type) => {
          const enc = encodeURIComponent(id);
          fc.pre(!/^[a-z0-9][a-z0-9-]{0,63}$/.test(id) && enc !== '' && enc !== '.' && enc !== '..');
          clientError(await t.app.inject(`/api/designs/${enc}`), `GET ${enc}`);
          clientError(await t.app.inject({ method: 'DELETE', url: `/api/designs/${enc}` }), `DELETE ${enc}`);
          clientError(
            await t.app.inject(`/api/designs/kept/versions/${encodeURIComponent(version)}x`),
            `version ${version}`,
          );
          clientError(await send('POST', '/api/compile', '{"design": {}}', type), type);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('afterwards the server is healthy, compiles and still has the saved design', async () => {
    expect((await t.app.inject('/api/health')).json()).toMatchObject({ ok: true });
    const res = await send('POST', '/api/compile', JSON.stringify({ design: example('gpipe-p4-m8') }));
    expect(res.statusCode).toBe(200);
    expect((await t.app.inject('/api/designs/kept')).statusCode).toBe(200);
    expect(t.store.integrityCheck()).toBe('ok');
  });
});
