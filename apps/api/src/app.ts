/**
 * The HTTP API of docs/api.md as a Fastify app, built from its parts so tests drive it with
 * `inject()`: the design store, the compile pool, the limits and the web app's files.
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { clientErrorHandler, continueUnlessTooLarge, drainBody } from './clientErrors.ts';
import type { DesignStore } from './designStore.ts';
import { ApiError, errorBody } from './errors.ts';
import { parseJsonBody } from './jsonBody.ts';
import { formatBytes, type Limits, withLimits } from './limits.ts';
import { PlanJobs } from './plan/planJobs.ts';
import type { CompilePool } from './pool/compilePool.ts';
import { ResultCache } from './resultCache.ts';
import { compileRoutes } from './routes/compile.ts';
import type { AppContext } from './routes/context.ts';
import { designRoutes } from './routes/designs.ts';
import { exportRoutes } from './routes/export.ts';
import { healthRoutes } from './routes/health.ts';
import { planJobRoutes } from './routes/planJobs.ts';
import { securityHeaders } from './securityHeaders.ts';
import { WebApp } from './webApp.ts';

export interface AppOptions {
  store: DesignStore;
  pool: CompilePool;
  /** Layout searches (default: made from the limits, stopped when the app closes). */
  plans?: PlanJobs;
  limits?: Partial<Limits>;
  cache?: ResultCache;
  web?: WebApp;
  /** Log requests and internal errors to stderr (the server does; tests do not). */
  logger?: boolean;
  /** Where the log goes when `logger` is set (default stdout): tests read what was logged. */
  logStream?: { write(line: string): void };
  /**
   * Host names requests must be addressed to (the Host header, port aside). A server on loopback
   * sets them, so a web page whose name was rebound to 127.0.0.1 cannot reach it (DNS rebinding).
   */
  allowedHosts?: readonly string[];
}

/** Compilers for route JSON schemas, which this API does not declare: a route that did fails to register. */
const JSON_SCHEMAS_REFUSED = {
  buildValidator: () => () => {
    throw new Error('routes validate their input with zod (schemas.ts), not with a JSON schema');
  },
  buildSerializer: () => () => {
    throw new Error('routes write their answers themselves, not through a JSON schema');
  },
};

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limits = withLimits(options.limits);
  const ctx: AppContext = {
    store: options.store,
    pool: options.pool,
    plans: options.plans ?? PlanJobs.forLimits(limits),
    limits,
    cache: options.cache ?? new ResultCache(1024, limits.cacheBytes),
    startedAt: Date.now(),
  };
  const web = options.web ?? WebApp.notBuilt();
  const app = Fastify({
    bodyLimit: limits.bodyBytes,
    logger: options.logger
      ? { level: 'warn', ...(options.logStream ? { stream: options.logStream } : {}) }
      : false,
    return503OnClosing: true,
    // A body that stalls is a 408 after this; headers have to arrive within it too.
    requestTimeout: limits.requestMs,
    http: {
      headersTimeout: Math.min(limits.requestMs, 10_000),
      // How often Node looks for requests over their time: the default (30 s) would let a 1 s limit run 30 s.
      connectionsCheckingInterval: Math.min(1_000, limits.requestMs),
    } as object,
    clientErrorHandler: clientErrorHandler(limits.requestMs),
    // Bodies are checked with zod (schemas.ts), never by a route's JSON schema: with these, fastify
    // does not load ajv and fast-json-stringify, a quarter of the server's start (issue 34).
    schemaController: { compilersFactory: JSON_SCHEMAS_REFUSED },
    // Errors the router raises before any route (a malformed URL) get the same shape as the rest.
    frameworkErrors: (err, _req, reply) => {
      const { status, issues } = describeError(err, limits, undefined, undefined);
      // The generic reply type of this hook is not the routes' one: answer through the raw status.
      const raw = reply as unknown as { code(n: number): { type(t: string): { send(b: unknown): void } } };
      raw.code(status).type('application/json; charset=utf-8').send(errorBody(issues));
    },
  });

  securityHeaders(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string, limits.jsonDepth));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  const allowed = options.allowedHosts
    ? new Set(options.allowedHosts.map((h) => h.toLowerCase()))
    : undefined;
  if (allowed) {
    app.addHook('onRequest', async (req) => {
      const host = hostName(req.headers.host ?? '');
      if (host === undefined || !allowed.has(host)) {
        throw new ApiError(403, {
          path: '',
          message: `requests must be addressed to ${[...allowed].join(' or ')}, not ${JSON.stringify((req.headers.host ?? '').slice(0, 100))}`,
        });
      }
    });
  }

  // Node answers `Expect: 100-continue` itself unless someone listens: listen, to refuse a body over the limit before it is sent.
  app.server.on(
    'checkContinue',
    continueUnlessTooLarge(limits.bodyBytes, (req, res) => app.server.emit('request', req, res)),
  );

  app.setErrorHandler(async (err: FastifyError | ApiError, req, reply) => {
    const { status, issues } = describeError(
      err,
      limits,
      req.headers['content-length'],
      req.headers['content-type'],
    );
    // A 503 is the server's time limit or a full queue doing its job: a warning naming which, not
    // an internal error with a stack that sends an operator looking for a bug.
    if (status === 503) req.log.warn({ url: req.url, reason: issues[0]?.message }, serviceRefusal(issues));
    else if (status === 507) req.log.warn({ url: req.url, reason: issues[0]?.message }, 'quota');
    else if (status >= 500) req.log.error({ err }, 'internal error');
    // The rest of an oversized body is still on its way: read it first, or the client, cut off
    // while sending, never reads this answer.
    if (status === 413 && !(err instanceof ApiError)) await drainBody(req.raw, limits.requestMs);
    if (err instanceof ApiError && err.retryAfterS !== undefined)
      reply.header('retry-after', String(err.retryAfterS));
    return reply.code(status).type('application/json; charset=utf-8').send(errorBody(issues));
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const isApi = path === '/api' || path.startsWith('/api/');
    if ((req.method === 'GET' || req.method === 'HEAD') && !isApi) {
      const file = web.lookup(req.url);
      reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      return reply.code(200).type(file.type).send(file.body);
    }
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(errorBody([{ path: '', message: `no route ${req.method} ${path.slice(0, 200)}` }]));
  });

  app.addHook('onClose', async () => ctx.plans.close());
  healthRoutes(app, ctx);
  compileRoutes(app, ctx);
  exportRoutes(app, ctx);
  designRoutes(app, ctx);
  planJobRoutes(app, ctx);
  return app;
}

/**
 * The name in a Host header: `[::1]:4173` → `::1`, `Localhost:80` → `localhost`; undefined when
 * the header is not a name and an optional numeric port (`localhost:evil`, `a:b:c`).
 */
function hostName(header: string): string | undefined {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]\s]+))(?::\d{1,5})?$/.exec(header.trim().toLowerCase());
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Fastify's own errors (body too large, bad media type, …) in the API's shape; anything else is internal. */
function describeError(
  err: FastifyError | ApiError,
  limits: Limits,
  contentLength: string | undefined,
  contentType: string | undefined,
): { status: number; issues: { path: string; message: string }[] } {
  if (err instanceof ApiError) return { status: err.status, issues: err.issues };
  const whole = (status: number, message: string) => ({ status, issues: [{ path: '', message }] });
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const size = Number(contentLength);
      const of = Number.isFinite(size) && size > 0 ? ` (${size.toLocaleString('en-US')} bytes)` : '';
      return whole(413, `the request body${of} is larger than the limit of ${formatBytes(limits.bodyBytes)}`);
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return whole(
        415,
        `the body must be application/json${contentType ? `, not ${JSON.stringify(contentType.slice(0, 100))}` : ' (no content-type given)'}`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return whole(400, 'invalid JSON: the body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return whole(400, 'the content-length does not match the body');
    case 'FST_ERR_CTP_INVALID_TYPE':
      return whole(415, 'the content-type is not valid');
    case 'FST_ERR_BAD_URL':
      return whole(400, 'the URL is not valid (a malformed %-escape)');
  }
  const status = (err as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return whole(status, (err.message || 'bad request').split('\n')[0]!);
  }
  return whole(500, 'internal error');
}

/** How a 503 is logged: a compile that ran out of time, or a server that had no room for it. */
export function serviceRefusal(issues: readonly { message: string }[]): 'timeout' | 'busy' {
  return /time limit/.test(issues[0]?.message ?? '') ? 'timeout' : 'busy';
}
