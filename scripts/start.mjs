// `npm start`: install what is missing, build the CLI and the server (scripts/build.mjs) and the web
// app when their builds are missing or older than their sources, then serve the API and the web
// app on http://127.0.0.1:4173/ (`stagecraft serve`; arguments after `npm start --` go to it,
// e.g. `npm start -- --port 8080`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from './build.mjs';
import { ensureDeps, ROOT } from './ensure.mjs';

const WEB = join(ROOT, 'apps', 'web');
const DIST = join(WEB, 'dist');

/** Newest modification time under `path` (a file or a directory), skipping node_modules and dist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    max = Math.max(max, newest(join(path, entry)));
  }
  return max;
}

/** Why the web app needs building, or undefined when apps/web/dist is up to date. */
function buildReason() {
  const built = join(DIST, 'index.html');
  if (!existsSync(built)) return 'apps/web/dist is missing';
  const sources = readdirSync(WEB)
    .filter((e) => e !== 'node_modules' && e !== 'dist')
    .map((e) => newest(join(WEB, e)));
  return Math.max(0, ...sources) > statSync(built).mtimeMs
    ? 'apps/web changed since the last build'
    : undefined;
}

ensureDeps();
await ensureBuilt();
if (existsSync(join(WEB, 'index.html'))) {
  const reason = buildReason();
  if (reason) {
    console.log(`${reason}: building the web app (vite build)`);
    const vite = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'vite.cmd' : 'vite');
    const r = spawnSync(vite, ['build'], { cwd: WEB, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(
        `the web app failed to build (exit ${r.status ?? r.signal}); fix it, then run npm start again`,
      );
      process.exit(r.status || 1);
    }
  }
} else {
  console.log('apps/web has no index.html yet: serving the API with a page saying the web app is not built');
}

const bin = join(ROOT, 'apps', 'cli', 'bin', 'stagecraft.mjs');
const child = spawn(process.execPath, [bin, 'serve', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
