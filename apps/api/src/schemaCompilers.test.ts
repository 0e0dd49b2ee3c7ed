/**
 * The server starts without fastify's JSON-schema compilers (ajv, fast-json-stringify): routes
 * check their bodies with zod, so loading those would only slow every start (docs/performance.md).
 */
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';
import { testApp } from '../test/harness.ts';

const loaded = () => Object.keys(createRequire(import.meta.url).cache);

test("an app is built and answers without loading ajv or fast-json-stringify's compiler", async () => {
  const t = await testApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(loaded().some((f) => f.includes('/node_modules/fastify/'))).toBe(true);
    // fastify's prebuilt error serializer needs fast-json-stringify's runtime (lib/), not its compiler.
    const compilers = /\/node_modules\/(ajv\/|fast-json-stringify\/index\.js|@fastify\/ajv-compiler\/)/;
    expect(loaded().filter((f) => compilers.test(f))).toEqual([]);
  } finally {
    await t.close();
  }
});

test('a route declaring a JSON schema is refused when the app gets ready, naming zod', async () => {
  const t = await testApp();
  try {
    const app = t.app;
    await expect(
      (async () => {
        // A fresh child context, so registration reaches the schema compilers.
        await app.register(async (child) => {
          child.post('/api/with-schema', { schema: { body: { type: 'object' } } }, async () => ({}));
        });
        await app.ready();
      })(),
    ).rejects.toThrow(/zod/);
  } finally {
    await t.close();
  }
});
