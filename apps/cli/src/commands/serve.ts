/**
 * `stagecraft serve [--port] [--host] [--db]`: the API and the web app on 127.0.0.1 until
 * interrupted. Long-running, so it is async and handled apart from the one-shot commands.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_DB, DEFAULT_HOST, DEFAULT_PORT, startServer } from '@stagecraft/api';
import { describeAmbiguousValue, joinNegativeValues } from '../dashValues.ts';
import type { Io } from '../io.ts';

export const SERVE_USAGE = `Usage: stagecraft serve [--port <n>] [--host <address>] [--db <file>] [--max-ops <n>]

Serves the HTTP API (docs/api.md) and the built web app until interrupted (Ctrl-C).
Saved designs live in an SQLite file; an empty database gets the example designs.

Options:
  --port <n>         port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <address>   address to bind (default ${DEFAULT_HOST}; another one exposes the service)
  --db <file>        the designs database (default .stagecraft/designs.sqlite in the repository)
  --max-ops <n>      refuse designs whose DAG exceeds n ops (default 1,000,000)

Example:
  stagecraft serve --port 8080 --db ~/stagecraft.sqlite`;

export type ServeArgs =
  | { ok: true; help: true }
  | { ok: true; help?: false; port: number; host: string; db: string; maxOps?: number }
  | { ok: false; error: string };

export function parseServeArgs(argv: readonly string[]): ServeArgs {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const options = {
      port: { type: 'string' },
      host: { type: 'string' },
      db: { type: 'string' },
      'max-ops': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const;
    ({ values, positionals } = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const unknown = /^Unknown option '([^']+)'/.exec(msg);
    const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
    return {
      ok: false,
      error: unknown
        ? `unknown option ${unknown[1]}`
        : missing
          ? `${missing[1]}: needs a value`
          : (describeAmbiguousValue(msg) ?? msg.split('\n')[0]!),
    };
  }
  if (values.help) return { ok: true, help: true };
  if (positionals.length > 0)
    return { ok: false, error: `serve: unexpected argument ${JSON.stringify(positionals[0])}` };
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (typeof values.port === 'string' && (!/^\d+$/.test(values.port) || port > 65535)) {
    return {
      ok: false,
      error: `--port: expected a port number 0..65535, got ${JSON.stringify(values.port)}`,
    };
  }
  const host = typeof values.host === 'string' ? values.host : DEFAULT_HOST;
  if (host === '') return { ok: false, error: '--host: needs an address' };
  if (values.db === '') return { ok: false, error: '--db: needs a file name' };
  const db = typeof values.db === 'string' ? values.db : DEFAULT_DB;
  const out: ServeArgs = { ok: true, port, host, db };
  if (typeof values['max-ops'] === 'string') {
    const n = Number(values['max-ops']);
    if (!/^\d+$/.test(values['max-ops']) || n < 1 || !Number.isSafeInteger(n)) {
      return {
        ok: false,
        error: `--max-ops: expected a positive integer, got ${JSON.stringify(values['max-ops'])}`,
      };
    }
    out.maxOps = n;
  }
  return out;
}

/** Starts the server; resolves with the exit status once it has been stopped by a signal. */
export async function serve(argv: readonly string[], io: Io): Promise<number> {
  const args = parseServeArgs(argv);
  if (!args.ok) {
    io.err(`error: ${args.error}`);
    io.err('run "stagecraft serve --help" for usage');
    return 1;
  }
  if (args.help) {
    io.out(SERVE_USAGE);
    return 0;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      port: args.port,
      host: args.host,
      db: args.db,
      logger: true,
      ...(args.maxOps !== undefined ? { limits: { maxOps: args.maxOps } } : {}),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const message = e instanceof Error ? e.message.split('\n')[0] : String(e);
    if (code === 'EADDRINUSE') io.err(`error: --port: port ${args.port} on ${args.host} is in use`);
    else if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      io.err(`error: --host: cannot bind ${args.host}`);
    else if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
      io.err(`error: ${args.db}: cannot open the designs database (${message})`);
    else io.err(`error: cannot start the server: ${message}`);
    return 1;
  }
  const seeded = server.store.seeded.length;
  io.out(`Stagecraft is running at ${server.url}`);
  io.out(
    `designs: ${args.db}${seeded > 0 ? ` (new; ${seeded} examples added)` : ''}; web app: ${server.web.built ? 'apps/web/dist' : 'not built'}; ${server.pool.size} compile workers`,
  );
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
