/** Revisions of a design compiled by id supersede older ones, but no one can claim a design forever. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, oneFOneB, post, type TestApp, testApp } from '../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ limits: { compileMs: 300 } });
});
afterAll(async () => t.close());

describe('revisions', () => {
  test('a revision far in the future holds a designId only for the time limit, not for everyone forever', async () => {
    const future = await post(t.app, '/api/compile', {
      design: oneFOneB(2, 2, 'future'),
      designId: 'shared',
      revision: Number.MAX_SAFE_INTEGER,
    });
    expect(future.statusCode).toBe(200);
    const soon = await post(t.app, '/api/compile', {
      design: oneFOneB(2, 4, 'mine'),
      designId: 'shared',
      revision: 1,
    });
    expect(soon.statusCode).toBe(409);
    expect(errorOf(soon).path).toBe('revision');
    await new Promise((r) => setTimeout(r, 400));
    const later = await post(t.app, '/api/compile', {
      design: oneFOneB(2, 4, 'mine'),
      designId: 'shared',
      revision: 1,
    });
    expect(later.statusCode).toBe(200);
  });
});
