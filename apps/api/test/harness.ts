/** An app on an in-memory store and a real worker pool, driven with `inject()`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DESIGN_FORMAT, type Design } from '@stagecraft/ir';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { DesignStore } from '../src/designStore.ts';
import { type Limits, withLimits } from '../src/limits.ts';
import { CompilePool } from '../src/pool/compilePool.ts';
import { REPO_ROOT } from '../src/server.ts';
import type { WebApp } from '../src/webApp.ts';

export const EXAMPLES = join(REPO_ROOT, 'examples');

export interface TestApp {
  app: FastifyInstance;
  store: DesignStore;
  pool: CompilePool;
  close(): Promise<void>;
}

export async function testApp(
  options: {
    limits?: Partial<Limits>;
    seed?: boolean;
    web?: WebApp;
    db?: string;
    /** Receives the server's log lines (warnings and errors), as `stagecraft serve` writes them. */
    log?: string[];
  } = {},
): Promise<TestApp> {
  const limits = withLimits({ workers: 1, ...options.limits });
  const store = DesignStore.open(options.db ?? ':memory:', {
    ...(options.seed ? { seedDir: EXAMPLES } : {}),
    quotaBytes: limits.designQuotaBytes,
  });
  const pool = CompilePool.forLimits(limits);
  await pool.ready();
  const log = options.log;
  const app = await buildApp({
    store,
    pool,
    limits,
    ...(options.web ? { web: options.web } : {}),
    ...(log ? { logger: true, logStream: { write: (line: string) => log.push(line) } } : {}),
  });
  return {
    app,
    store,
    pool,
    async close() {
      await app.close();
      await pool.close();
      store.close();
    },
  };
}

export function example(name: string): Design {
  return JSON.parse(readFileSync(join(EXAMPLES, `${name}.json`), 'utf8')) as Design;
}

/** A synthetic 1F1B design on p ranks with m microbatches. */
export function oneFOneB(p: number, m: number, name = `1F1B, p=${p}, m=${m}`): Design {
  return {
    format: DESIGN_FORMAT,
    name,
    model: { kind: 'synthetic', stages: p, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 2 ** 28 },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: m }],
  };
}

/** A request with a JSON body, as a client sends it. */
function sendJson(app: FastifyInstance, method: 'POST' | 'PUT', url: string, body: unknown) {
  return app.inject({
    method,
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

export const post = (app: FastifyInstance, url: string, body: unknown) => sendJson(app, 'POST', url, body);

export const put = (app: FastifyInstance, url: string, body: unknown) => sendJson(app, 'PUT', url, body);

/** The `{error: {path, message}}` of a reply, checked for shape. */
export function errorOf(res: { json(): unknown }): {
  path: string;
  message: string;
  all: { path: string; message: string }[];
} {
  const body = res.json() as {
    error: { path: string; message: string };
    errors?: { path: string; message: string }[];
  };
  if (typeof body.error?.path !== 'string' || typeof body.error?.message !== 'string') {
    throw new Error(`not an error body: ${JSON.stringify(body).slice(0, 200)}`);
  }
  return { ...body.error, all: body.errors ?? [body.error] };
}
