/** `GET /api/health`: the service is up, and what it runs on. */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/health', async () => ({
    ok: true,
    version: VERSION,
    workers: ctx.pool.size,
    uptimeS: Math.round((Date.now() - ctx.startedAt) / 1000),
    rssBytes: process.memoryUsage.rss(),
    cache: {
      entries: ctx.cache.size,
      bytes: ctx.cache.sizeBytes,
      hits: ctx.cache.hits,
      misses: ctx.cache.misses,
    },
  }));
}
