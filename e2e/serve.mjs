// Builds the web app and serves it with the API on a fresh temporary database, for the browser
// tests and the frame benchmark. The database goes when the server does.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = process.argv[2] ?? '4791';

const build = spawnSync(
  process.execPath,
  [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
  {
    cwd: join(root, 'apps/web'),
    stdio: 'inherit',
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);
// The server and its workers run from the build, as `npm start` serves them.
await ensureBuilt();

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-e2e-'));
const server = spawn(
  process.execPath,
  [join(root, 'apps/cli/bin/stagecraft.mjs'), 'serve', '--port', port, '--db', join(dir, 'designs.db')],
  { cwd: root, stdio: 'inherit' },
);
const cleanup = () => rmSync(dir, { recursive: true, force: true });
server.on('exit', (code) => {
  cleanup();
  process.exit(code ?? 0);
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => server.kill(sig));
}
