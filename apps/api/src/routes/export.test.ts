import { exportDesign } from '@stagecraft/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorOf, example, oneFOneB, post, type TestApp, testApp } from '../../test/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ limits: { maxOps: 5_000 } });
});
afterAll(async () => t.close());

describe('POST /api/export', () => {
  test.each([
    ['plan', {}, 'application/json', 'ZB-H1, p_4, m_8.plan.json'],
    ['piper', {}, 'application/json', 'ZB-H1, p_4, m_8.piper.json'],
    ['torch-csv', {}, 'text/csv', 'ZB-H1, p_4, m_8.compute.csv'],
    ['torch-csv', { torchFormat: 'compute_comms' }, 'text/csv', 'ZB-H1, p_4, m_8.comms.csv'],
    ['torch-csv', { torchDialect: 'legacy' }, 'text/csv', 'ZB-H1, p_4, m_8.compute.csv'],
    ['chrome-trace', {}, 'application/json', 'ZB-H1, p_4, m_8.trace.json'],
  ] as const)(
    '%s %j is the file exportDesign writes, as an attachment',
    async (format, options, type, file) => {
      const design = example('zb-h1-p4-m8');
      const res = await post(t.app, '/api/export', { design, format, options });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(new RegExp(`^${type}`));
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="${file}"; filename*=UTF-8''${encodeURIComponent(file.replace(/_/g, '='))}`,
      );
      const expected = exportDesign(design, format, options);
      expect(expected.ok && res.body).toBe(expected.ok && expected.text);
      if (type === 'application/json') JSON.parse(res.body);
    },
  );

  test('a format the design cannot be written in is a 422 naming the directive', async () => {
    const res = await post(t.app, '/api/export', { design: example('dualpipe-p4-m8'), format: 'torch-csv' });
    expect(res.statusCode).toBe(422);
    expect(errorOf(res)).toMatchObject({
      path: 'design.directives[0]',
      message: expect.stringMatching(/DIR and MB/),
    });
  });

  test('an unknown format or option is a 400 naming it', async () => {
    const bad = await post(t.app, '/api/export', { design: oneFOneB(2, 2), format: 'onnx' });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).path).toBe('format');
    const opt = await post(t.app, '/api/export', {
      design: oneFOneB(2, 2),
      format: 'torch-csv',
      options: { torchFormat: 'all' },
    });
    expect(errorOf(opt).path).toBe('options.torchFormat');
    const missing = await post(t.app, '/api/export', { design: oneFOneB(2, 2) });
    expect(errorOf(missing).path).toBe('format');
  });

  test('a design over the op limit is a 413 naming the limit and the size', async () => {
    const res = await post(t.app, '/api/export', { design: oneFOneB(4, 1000), format: 'chrome-trace' });
    expect(res.statusCode).toBe(413);
    expect(errorOf(res).message).toMatch(/over the limit of 5,000/);
  });

  test('a file over the export limit is a 413 naming its size and the limit, and the CLI that writes it', async () => {
    const small = await testApp({ limits: { exportBytes: 4096 } });
    try {
      const design = example('zb-h1-p4-m8');
      const expected = exportDesign(design, 'plan', {});
      const bytes = expected.ok ? Buffer.byteLength(expected.text) : 0;
      expect(bytes).toBeGreaterThan(4096);
      const res = await post(small.app, '/api/export', { design, format: 'plan' });
      expect(res.statusCode).toBe(413);
      expect(errorOf(res)).toEqual({
        path: 'format',
        message: `the plan file is ${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes.toLocaleString('en-US')} bytes), over the export limit of 4 KiB; write it with the CLI: stagecraft export <design> --format plan`,
        all: expect.anything(),
      });
      const fits = await post(small.app, '/api/export', { design: oneFOneB(2, 1), format: 'torch-csv' });
      expect(fits.statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });

  test('a name outside ASCII keeps its exact form in filename*', async () => {
    const res = await post(t.app, '/api/export', {
      design: oneFOneB(2, 2, 'Pipeline “α” / test'),
      format: 'plan',
    });
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Pipeline ___ _ test.plan.json"; filename*=UTF-8''${encodeURIComponent('Pipeline “α” / test.plan.json')}`,
    );
  });
});
