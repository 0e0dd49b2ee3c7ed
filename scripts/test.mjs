// `npm test`: install what is missing, build the CLI and the server when their build is missing or
// stale (the tests that spawn the `stagecraft` bin run it, as users do), then lint, typecheck, unit
// tests and (when there are any) browser tests, and close with one line `N passed, N failed` summed
// over all of them. Lint and typecheck count as one check each; Vitest, pytest (the runtime) and
// Playwright count their tests.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from './build.mjs';
import { ensureDeps, ROOT } from './ensure.mjs';

const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const tmp = mkdtempSync(join(tmpdir(), 'stagecraft-test-'));
const totals = { passed: 0, failed: 0 };
const notes = [];

function heading(text) {
  console.log(`\n=== ${text}`);
}

function run(command, args, env = {}) {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.error) console.error(`${command}: ${r.error.message}`);
  return r.status ?? 1;
}

/** A check that passes or fails as a whole (lint, typecheck). */
function check(name, command, args, env) {
  heading(name);
  const ok = run(command, args, env) === 0;
  totals[ok ? 'passed' : 'failed'] += 1;
  if (!ok) notes.push(`${name} failed`);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Debian's Chromium for the browser tests: CHROMIUM_PATH, /usr/bin/chromium, or installed with apt as root. */
function findBrowser() {
  if (process.env.CHROMIUM_PATH) {
    if (existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH;
    console.log(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist`);
    return undefined;
  }
  const debian = '/usr/bin/chromium';
  if (existsSync(debian)) return debian;
  if (process.getuid?.() === 0 && existsSync('/etc/debian_version')) {
    heading('installing Debian chromium for the browser tests');
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['update'], env) === 0 && run('apt-get', ['install', '-y', 'chromium'], env) === 0) {
      if (existsSync(debian)) return debian;
    }
    console.log('apt-get could not install chromium');
  }
  console.log('No Chromium for the browser tests: they are skipped. To run them, point CHROMIUM_PATH at a');
  console.log('Chromium or Chrome binary (CHROMIUM_PATH=/path/to/chromium npm test), or on Debian, as root:');
  console.log('apt-get install -y chromium');
  return undefined;
}

/** The interpreter for the runtime's tests: STAGECRAFT_PYTHON or Debian's python3, with torch and pytest (apt as root). */
function findPython() {
  const python = process.env.STAGECRAFT_PYTHON || '/usr/bin/python3';
  const ready = () =>
    spawnSync(python, ['-c', 'import torch.distributed, pytest'], { stdio: 'ignore' }).status === 0;
  if (ready()) return python;
  if (!process.env.STAGECRAFT_PYTHON && process.getuid?.() === 0 && existsSync('/etc/debian_version')) {
    heading('installing Debian python3-torch and python3-pytest for the runtime tests');
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    if (
      run('apt-get', ['update'], env) === 0 &&
      run('apt-get', ['install', '-y', 'python3-torch', 'python3-pytest'], env) === 0
    ) {
      if (ready()) return python;
    }
    console.log('apt-get could not install python3-torch and python3-pytest');
  }
  console.log(`No Python with torch and pytest at ${python}: the runtime tests (runtime/tests) are skipped.`);
  console.log('To run them, on Debian as root: apt-get install -y python3-torch python3-pytest; or point');
  console.log('STAGECRAFT_PYTHON at an interpreter that has torch and pytest.');
  return undefined;
}

function pytest(python) {
  heading('pytest (runtime/tests)');
  if (!python) {
    console.log('skipped: no Python with torch and pytest (see above)');
    notes.push('runtime tests skipped (no torch; set STAGECRAFT_PYTHON)');
    return;
  }
  const report = join(tmp, 'pytest.xml');
  const status = run(python, [
    '-m',
    'pytest',
    '-q',
    '-p',
    'no:cacheprovider',
    `--junitxml=${report}`,
    'runtime/tests',
  ]);
  let xml = '';
  try {
    xml = readFileSync(report, 'utf8');
  } catch {
    totals.failed += 1;
    notes.push('pytest wrote no report');
    return;
  }
  const attr = (name) => Number(new RegExp(`<testsuite[^>]*\\s${name}="(\\d+)"`).exec(xml)?.[1] ?? 0);
  const failed0 = attr('failures') + attr('errors');
  totals.passed += attr('tests') - failed0 - attr('skipped');
  const failed = status !== 0 && failed0 === 0 ? 1 : failed0;
  totals.failed += failed;
  if (failed > 0) notes.push(`pytest: ${failed} failed`);
}

function vitest() {
  heading('vitest');
  const report = join(tmp, 'vitest.json');
  const status = run(bin('vitest'), [
    'run',
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ]);
  const r = readJson(report);
  if (!r) {
    totals.failed += 1;
    notes.push('vitest wrote no report');
    return;
  }
  totals.passed += r.numPassedTests ?? 0;
  // A test file that cannot load fails no test: count it as one failure so it is seen.
  const unloaded = (r.testResults ?? []).filter((f) => f.status === 'failed' && !f.assertionResults?.length);
  let failed = (r.numFailedTests ?? 0) + unloaded.length;
  if (status !== 0 && failed === 0) failed = 1;
  totals.failed += failed;
  if (failed > 0) notes.push(`vitest: ${failed} failed`);
}

function playwright(browser) {
  const dir = join(ROOT, 'e2e');
  const config = ['playwright.config.ts', 'playwright.config.mjs', 'playwright.config.js']
    .map((f) => join(dir, f))
    .find((f) => existsSync(f));
  if (!config) return;
  heading('playwright');
  if (!browser) {
    console.log('skipped: no Chromium (see above)');
    notes.push('browser tests skipped (no Chromium; set CHROMIUM_PATH)');
    return;
  }
  const report = join(tmp, 'playwright.json');
  const status = run(bin('playwright'), ['test', '--config', config, '--reporter=list,json'], {
    CHROMIUM_PATH: browser,
    PLAYWRIGHT_JSON_OUTPUT_NAME: report,
  });
  const stats = readJson(report)?.stats;
  if (!stats) {
    totals.failed += 1;
    notes.push('playwright wrote no report');
    return;
  }
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  let failed = stats.unexpected ?? 0;
  if (status !== 0 && failed === 0) failed = 1;
  totals.failed += failed;
  if (failed > 0) notes.push(`playwright: ${failed} failed`);
}

ensureDeps();
await ensureBuilt();
const browser = findBrowser();
const quiet = { TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1', DO_NOT_TRACK: '1' };
check('lint (biome check .)', bin('biome'), ['check', '.']);
check('typecheck (turbo run typecheck)', bin('turbo'), ['run', 'typecheck'], quiet);
vitest();
pytest(findPython());
playwright(browser);
rmSync(tmp, { recursive: true, force: true });

console.log('');
for (const n of notes) console.log(`- ${n}`);
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed > 0 ? 1 : 0);
