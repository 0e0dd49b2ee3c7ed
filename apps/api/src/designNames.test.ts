/** A design's name reads back the same from every route that shows it, whatever text it holds. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oneFOneB, post, put, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => t.close());

describe('design names', () => {
  test('a name with a lone surrogate reads back the same from every route', async () => {
    // JSON text as a client could send it: "\ud800" escaped, with no low half after it.
    const payload = JSON.stringify({ id: 'lone', design: oneFOneB(2, 2, 'half X') }).replace(
      'half X',
      'half \\ud800 X',
    );
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/designs',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    expect(created.statusCode).toBe(201);
    const names = new Set<string>();
    const saved = (await t.app.inject('/api/designs/lone')).json() as {
      name: string;
      design: { name: string };
    };
    names.add(saved.name).add(saved.design.name);
    const list = (await t.app.inject('/api/designs')).json() as { designs: { id: string; name: string }[] };
    names.add(list.designs.find((d) => d.id === 'lone')!.name);
    const versions = (await t.app.inject('/api/designs/lone/versions')).json() as {
      versions: { name: string }[];
    };
    names.add(versions.versions[0]!.name);
    names.add(
      ((await t.app.inject('/api/designs/lone/versions/1')).json() as { design: { name: string } }).design
        .name,
    );
    const compiled = await post(t.app, '/api/compile', { design: saved.design });
    expect(compiled.statusCode).toBe(200);
    names.add((compiled.json() as { metrics: { name: string } }).metrics.name);
    const exported = await post(t.app, '/api/export', { design: saved.design, format: 'chrome-trace' });
    expect(exported.statusCode).toBe(200);
    const file = /filename\*=UTF-8''(.*)$/.exec(String(exported.headers['content-disposition']))![1]!;
    names.add(decodeURIComponent(file).replace(/\.[a-z.]+$/, ''));
    expect([...names]).toEqual(['half \ufffd X']);
    expect((await put(t.app, '/api/designs/lone', { design: saved.design, baseVersion: 1 })).statusCode).toBe(
      200,
    );
  });
});
