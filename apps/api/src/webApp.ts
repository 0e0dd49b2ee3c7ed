/**
 * The built web app (apps/web/dist), read into memory once at start. Requests are answered from
 * that table by exact path, never by joining a URL onto a directory, so no request can name a
 * file outside it. Unknown paths get index.html (the app routes on the client).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

export interface WebFile {
  body: Buffer;
  type: string;
  /** Vite's hashed assets never change under one name. */
  immutable: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

/** More than this in dist is not a web app build: stop reading. */
const MAX_BYTES = 128 * 1024 * 1024;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stagecraft</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Stagecraft</h1>
<p>The web app is not built. Run <code>npm start</code> from the repository root to build it, or
<code>npx vite build</code> in <code>apps/web</code>.</p>
<p>The API is running: try <a href="/api/health">/api/health</a>.</p>
</body></html>
`;

export class WebApp {
  private constructor(
    private readonly files: ReadonlyMap<string, WebFile>,
    readonly built: boolean,
  ) {}

  /** Reads every file under `dist` (without following links); a missing dist is "not built". */
  static load(dist: string | undefined): WebApp {
    const files = new Map<string, WebFile>();
    if (!dist || !existsSync(join(dist, 'index.html'))) return WebApp.notBuilt();
    let total = 0;
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) {
          total += statSync(full).size;
          if (total > MAX_BYTES) throw new Error(`${dist} holds more than ${MAX_BYTES} bytes`);
          const url = `/${relative(dist, full).split(sep).join('/')}`;
          files.set(url, {
            body: readFileSync(full),
            type: TYPES[extname(entry.name).toLowerCase()] ?? 'application/octet-stream',
            immutable: url.startsWith('/assets/'),
          });
        }
      }
    };
    walk(dist);
    return new WebApp(files, true);
  }

  static notBuilt(): WebApp {
    const page: WebFile = {
      body: Buffer.from(NOT_BUILT),
      type: 'text/html; charset=utf-8',
      immutable: false,
    };
    return new WebApp(new Map([['/index.html', page]]), false);
  }

  /** The file for a request URL (query ignored); index.html for anything unknown. */
  lookup(url: string): WebFile {
    const q = url.search(/[?#]/);
    let path = q < 0 ? url : url.slice(0, q);
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape names no file: the app's index answers it.
    }
    const file = this.files.get(path === '/' ? '/index.html' : path);
    return file ?? this.files.get('/index.html')!;
  }

  get fileCount(): number {
    return this.built ? this.files.size : 0;
  }
}
