/**
 * The running service: the store on its file, the worker pool, the app, listening on
 * 127.0.0.1 unless told otherwise, closed cleanly on SIGINT / SIGTERM.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { DesignStore } from './designStore.ts';
import { type Limits, withLimits } from './limits.ts';
import { CompilePool } from './pool/compilePool.ts';
import { WebApp } from './webApp.ts';

/** The repository root (apps/api/src → ../../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEFAULT_DB = join(REPO_ROOT, '.stagecraft', 'designs.sqlite');
export const DEFAULT_PORT = 4173;
export const DEFAULT_HOST = '127.0.0.1';
/** Names of this machine's loopback interface a browser may use. */
const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

export interface ServerOptions {
  port?: number;
  host?: string;
  db?: string;
  limits?: Partial<Limits>;
  /** Built web app to serve (default apps/web/dist). */
  webDist?: string;
  /** Designs to seed an empty database with (default examples/). */
  seedDir?: string;
  logger?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  store: DesignStore;
  pool: CompilePool;
  web: WebApp;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const limits = withLimits(options.limits);
  const store = DesignStore.open(options.db ?? DEFAULT_DB, {
    seedDir: options.seedDir ?? join(REPO_ROOT, 'examples'),
    quotaBytes: limits.designQuotaBytes,
  });
  const pool = CompilePool.forLimits(limits, true);
  const dist = options.webDist ?? join(REPO_ROOT, 'apps', 'web', 'dist');
  const web = WebApp.load(existsSync(dist) ? dist : undefined);
  const host = options.host ?? DEFAULT_HOST;
  const app = await buildApp({
    store,
    pool,
    limits,
    web,
    logger: options.logger ?? false,
    ...(LOOPBACK.includes(host) ? { allowedHosts: [...new Set([...LOOPBACK, host])] } : {}),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await pool.close();
    store.close();
  };
  try {
    await app.listen({ port: options.port ?? DEFAULT_PORT, host });
  } catch (e) {
    await close();
    throw e;
  }
  // Only now: on two cores, workers loading the compiler beside the server's own start made it
  // answer later (issue 34). A compile sent meanwhile waits in the queue for the first of them.
  pool.startWorkers();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? DEFAULT_PORT);
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return { app, url: `http://${shown}:${port}/`, store, pool, web, close };
}
