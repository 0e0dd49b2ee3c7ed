import { afterEach, describe, expect, test, vi } from 'vitest';
import { example } from '../../test/testDesigns.ts';
import { progressText } from '../components/ExportMenu.tsx';
import { type ExportProgress, exportDesign } from './designsApi.ts';

afterEach(() => vi.unstubAllGlobals());

describe('exporting a large file', () => {
  test('reports the compile, then every chunk that arrives against the announced size', async () => {
    const chunk = new Uint8Array(1 << 20).fill(65);
    const chunks = 20;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent++ < chunks) c.enqueue(chunk);
            else c.close();
          },
        });
        return new Response(body, {
          status: 200,
          headers: { 'content-type': 'application/json', 'content-length': String(chunks * chunk.length) },
        });
      }),
    );
    const seen: ExportProgress[] = [];
    const r = await exportDesign(example('1f1b-p4-m8'), 'chrome-trace', {}, (p) => seen.push(p));
    expect(r.ok && r.value.size).toBe(20 * 2 ** 20);
    expect(seen[0]).toEqual({ phase: 'compiling' });
    const receiving = seen.filter((p) => p.phase === 'receiving');
    expect(receiving.length).toBeGreaterThanOrEqual(2);
    expect(receiving.at(-1)).toEqual({ phase: 'receiving', bytes: 20 * 2 ** 20, total: 20 * 2 ** 20 });
    expect(progressText(receiving[Math.floor(receiving.length / 2)]!)).toMatch(
      /^receiving .* of 20(\.0)? MiB \(\d+%\)$/,
    );
  });

  test('a refused export comes back as the API’s message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ error: { path: 'design', message: 'cannot express DualPipe' } }), {
            status: 422,
          }),
      ),
    );
    const r = await exportDesign(example('1f1b-p4-m8'), 'torch-csv', {});
    expect(r).toEqual({ ok: false, status: 422, message: 'design: cannot express DualPipe' });
  });
});
