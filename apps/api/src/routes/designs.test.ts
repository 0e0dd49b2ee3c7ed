import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, example, oneFOneB, post, put, type TestApp, testApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ seed: true });
});
afterAll(async () => t.close());

describe('saved designs', () => {
  test('an empty database is seeded with the example designs', async () => {
    const res = await t.app.inject('/api/designs');
    expect(res.statusCode).toBe(200);
    const ids = (res.json() as { designs: { id: string }[] }).designs.map((d) => d.id);
    expect(ids).toContain('1f1b-p4-m8');
    expect(ids).toContain('manual-order-p2-m4');
  });

  test('a design created with an id is listed first and read back as saved', async () => {
    const design = oneFOneB(2, 4, 'Mine');
    const created = await post(t.app, '/api/designs', { id: 'mine', design });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ id: 'mine', version: 1 });
    const list = (await t.app.inject('/api/designs')).json() as {
      designs: { id: string; name: string; version: number; updatedAt: string }[];
    };
    expect(list.designs[0]).toMatchObject({ id: 'mine', name: 'Mine', version: 1 });
    expect(Date.parse(list.designs[0]!.updatedAt)).not.toBeNaN();
    const got = await t.app.inject('/api/designs/mine');
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id: 'mine', name: 'Mine', version: 1, design });
  });

  test('creating an id that exists is a 409 naming the id', async () => {
    const res = await post(t.app, '/api/designs', { id: '1f1b-p4-m8', design: example('1f1b-p4-m8') });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).path).toBe('id');
  });

  test('a design created without an id gets one from its name', async () => {
    const res = await post(t.app, '/api/designs', { design: oneFOneB(2, 2, 'Zero Bubble: try #2') });
    expect(res.statusCode).toBe(201);
    const { id } = res.json() as { id: string };
    expect(id).toMatch(/^zero-bubble-try-2-[0-9a-f]{8}$/);
  });

  test('every PUT keeps a new version; the history lists them newest first', async () => {
    const d = oneFOneB(2, 4, 'v1');
    expect((await put(t.app, '/api/designs/hist', { design: d })).json()).toEqual({ id: 'hist', version: 1 });
    expect(
      (await put(t.app, '/api/designs/hist', { design: { ...d, name: 'v2' }, baseVersion: 1 })).json(),
    ).toEqual({
      id: 'hist',
      version: 2,
    });
    expect((await put(t.app, '/api/designs/hist', { design: { ...d, name: 'v3' } })).json()).toEqual({
      id: 'hist',
      version: 3,
    });
    const versions = (await t.app.inject('/api/designs/hist/versions')).json() as {
      versions: { version: number; name: string; savedAt: string }[];
    };
    expect(versions.versions.map((v) => [v.version, v.name])).toEqual([
      [3, 'v3'],
      [2, 'v2'],
      [1, 'v1'],
    ]);
    const v2 = await t.app.inject('/api/designs/hist/versions/2');
    expect(v2.statusCode).toBe(200);
    expect(v2.json()).toMatchObject({ id: 'hist', version: 2, design: { name: 'v2' } });
    expect(typeof (v2.json() as { savedAt: string }).savedAt).toBe('string');
  });

  test('a PUT on a version that is no longer the latest is a 409 and saves nothing', async () => {
    const d = oneFOneB(2, 4, 'race');
    await put(t.app, '/api/designs/race', { design: d });
    await put(t.app, '/api/designs/race', { design: d, baseVersion: 1 });
    const res = await put(t.app, '/api/designs/race', { design: { ...d, name: 'lost' }, baseVersion: 1 });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toMatchObject({
      path: 'baseVersion',
      message: expect.stringContaining('the latest is 2'),
    });
    expect(((await t.app.inject('/api/designs/race')).json() as { version: number }).version).toBe(2);
    const fresh = await put(t.app, '/api/designs/never-saved', { design: d, baseVersion: 3 });
    expect(fresh.statusCode).toBe(409);
  });

  test('a design that parses but does not compile can still be saved', async () => {
    const d = { ...oneFOneB(2, 4), directives: [{ op: 'place', filter: { PP: 9 }, devices: [0] }] };
    const res = await put(t.app, '/api/designs/wip', { design: d });
    expect(res.statusCode).toBe(200);
  });

  test('a design that does not parse is a 400 with paths under design and saves nothing', async () => {
    const d = { ...oneFOneB(2, 4), directives: [{ op: 'plcae', filter: {} }] };
    const res = await put(t.app, '/api/designs/broken', { design: d });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('design.directives[0].op');
    expect((await t.app.inject('/api/designs/broken')).statusCode).toBe(404);
    const noDesign = await put(t.app, '/api/designs/broken', {});
    expect(errorOf(noDesign).path).toBe('design');
    const extra = await put(t.app, '/api/designs/broken', { design: d, colour: 'red' });
    expect(errorOf(extra).all.map((e) => e.path)).toContain('colour');
  });

  test('DELETE removes a design with its versions', async () => {
    await put(t.app, '/api/designs/gone', { design: oneFOneB(2, 2) });
    await put(t.app, '/api/designs/gone', { design: oneFOneB(2, 2) });
    expect((await t.app.inject({ method: 'DELETE', url: '/api/designs/gone' })).statusCode).toBe(204);
    expect((await t.app.inject('/api/designs/gone')).statusCode).toBe(404);
    expect((await t.app.inject('/api/designs/gone/versions')).statusCode).toBe(404);
    expect((await t.app.inject('/api/designs/gone/versions/1')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/designs/gone' })).statusCode).toBe(404);
  });

  test.each([
    ['GET', '/api/designs/Upper'],
    ['GET', '/api/designs/-dash'],
    ['GET', `/api/designs/${'a'.repeat(65)}`],
    ['GET', '/api/designs/..%2F..%2Fetc'],
    ['DELETE', '/api/designs/a_b'],
    ['GET', '/api/designs/a%20b/versions'],
  ])('%s %s: an id outside [a-z0-9][a-z0-9-]{0,63} is a 400 naming id', async (method, url) => {
    const res = await t.app.inject({ method: method as 'GET', url });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('id');
  });

  test('a bad id in a POST body is a 400 naming id', async () => {
    const res = await post(t.app, '/api/designs', { id: 'Not Valid', design: oneFOneB(2, 2) });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('id');
  });

  test.each(['0', 'x', '1.5', '-1', '99999999999999999999'])(
    'version %j is a 400 naming version',
    async (v) => {
      const res = await t.app.inject(`/api/designs/1f1b-p4-m8/versions/${v}`);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).path).toBe('version');
    },
  );

  test('a version that does not exist is a 404 naming version', async () => {
    const res = await t.app.inject('/api/designs/1f1b-p4-m8/versions/7');
    expect(res.statusCode).toBe(404);
    expect(errorOf(res).path).toBe('version');
  });

  test('a copy of an example records the example, listed with it; a bad example id is a 400 naming example', async () => {
    const res = await put(t.app, '/api/designs/my-copy', {
      design: oneFOneB(2, 2),
      example: 'llama3.1-405b-tp8-pp16-dp64',
    });
    expect(res.statusCode).toBe(200);
    const list = (await t.app.inject('/api/designs')).json() as {
      designs: { id: string; example?: string }[];
    };
    expect(list.designs.find((d) => d.id === 'my-copy')).toMatchObject({
      example: 'llama3.1-405b-tp8-pp16-dp64',
    });
    expect(list.designs.find((d) => d.id === '1f1b-p4-m8')!.example).toBeUndefined();
    const bad = await put(t.app, '/api/designs/bad-copy', { design: oneFOneB(2, 2), example: '../x' });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).path).toBe('example');
  });

  test('baseVersion must be a positive integer', async () => {
    const res = await put(t.app, '/api/designs/bv', { design: oneFOneB(2, 2), baseVersion: 'latest' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).path).toBe('baseVersion');
  });
});

describe('the database quota', () => {
  test('a save past the quota is a 507 with the quota, the bytes used and the design’s; deleting makes room', async () => {
    const design = oneFOneB(2, 4, 'Quota');
    const bytes = Buffer.byteLength(JSON.stringify(design));
    const log: string[] = [];
    const q = await testApp({ limits: { designQuotaBytes: 2 * bytes + 10 }, log });
    try {
      expect((await post(q.app, '/api/designs', { id: 'a', design })).statusCode).toBe(201);
      expect((await put(q.app, '/api/designs/a', { design, baseVersion: 1 })).statusCode).toBe(200);
      for (const refused of [
        await post(q.app, '/api/designs', { id: 'b', design }),
        await post(q.app, '/api/designs', { design }),
        await put(q.app, '/api/designs/a', { design, baseVersion: 2 }),
      ]) {
        expect(refused.statusCode).toBe(507);
        expect(errorOf(refused).path).toBe('design');
        expect(errorOf(refused).message).toMatch(
          /^the saved designs would pass the database's quota of 0\.0 MiB \(0\.0 MiB used, this design 0\.0 MiB\); delete designs you no longer need$/,
        );
      }
      expect(((await q.app.inject('/api/designs')).json() as { designs: unknown[] }).designs).toHaveLength(1);
      expect(q.store.usedBytes()).toBe(2 * bytes);
      expect(log.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['quota', 'quota', 'quota']);
      expect((await q.app.inject({ method: 'DELETE', url: '/api/designs/a' })).statusCode).toBe(204);
      expect(q.store.usedBytes()).toBe(0);
      expect((await post(q.app, '/api/designs', { id: 'b', design })).statusCode).toBe(201);
    } finally {
      await q.close();
    }
  });
});
