// Installs the dependencies when they are missing or older than package-lock.json, so `npm start`
// and `npm test` work as the first command after a clone. No dependencies of its own.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : undefined;
}

/** Why `npm ci` is needed, or undefined when node_modules is up to date. */
export function installReason(root = ROOT) {
  const modules = join(root, 'node_modules');
  if (!existsSync(modules)) return 'node_modules is missing';
  const lock = mtime(join(root, 'package-lock.json'));
  // npm rewrites node_modules/.package-lock.json on every install; the folder itself may be older.
  const installed = Math.max(mtime(modules) ?? 0, mtime(join(modules, '.package-lock.json')) ?? 0);
  if (lock !== undefined && installed < lock) return 'node_modules is older than package-lock.json';
  return undefined;
}

export function ensureDeps(root = ROOT) {
  const reason = installReason(root);
  if (!reason) return;
  console.log(`${reason}: running npm ci`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`npm ci failed (exit ${r.status ?? r.signal}); fix the install, then run this again`);
    process.exit(r.status || 1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureDeps();
