/**
 * The built app served by e2e/serve.mjs on a fresh database, for the scripts that drive it outside
 * Playwright's runner (the README's screenshots, bench/web-frames.ts); the runner's own webServer
 * starts the same serve.mjs.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface AppServer {
  /** e.g. http://127.0.0.1:4794 */
  readonly base: string;
  stop(): void;
}

/**
 * Starts the server on `port` and resolves once /api/health answers (the build can take a minute).
 * `root` serves another checkout of the repository (bench/web-frames.ts --old: the code before).
 */
export async function startAppServer(port: number, root = REPOSITORY_ROOT): Promise<AppServer> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(root, 'e2e/serve.mjs'), String(port)], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = { base, stop: () => void child.kill('SIGTERM') };
  try {
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${base}/api/health`)).ok) return server;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the server did not start');
  } catch (e) {
    server.stop();
    throw e;
  }
}
