// The built JavaScript that the `stagecraft` bin, the API server and its workers run from, so that
// no command pays for transpiling TypeScript: one esbuild bundle of four entry points, the CLI's
// (apps/cli/src/bin.ts), the compile worker's (apps/api/src/pool/compileWorker.ts), the planner's
// layout worker's (packages/planner/src/threads/layoutWorker.ts) and the API's layout search thread
// (apps/api/src/plan/planWorker.ts), the last two found beside the compile worker, in
// apps/cli/dist/ (not committed). Built from entry points, it follows any move of the files behind
// them. `npm start`, `npm test`, `npm run bench`, scripts/outputs.mjs and `npm install` (the root
// `prepare` script) build it when it is missing or stale; the bin itself never builds: it runs the
// sources instead (apps/cli/bin/stagecraft.mjs).
//   node scripts/build.mjs          build when missing or stale, else say it is up to date
//   node scripts/build.mjs --force  build anyway
// No dependency at import: esbuild is loaded only to build, so the bin can ask `buildState()`.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_DIR = join(ROOT, 'apps', 'cli', 'dist');
/** Written last by a build: the files it was made from. Its modification time stamps the build. */
const MANIFEST = 'inputs.json';
/** Bundled files of node_modules change only with an install, which rewrites this file. */
const INSTALL_STAMP = join('node_modules', '.package-lock.json');

const ENTRIES = {
  stagecraft: join(ROOT, 'apps', 'cli', 'src', 'bin.ts'),
  compileWorker: join(ROOT, 'apps', 'api', 'src', 'pool', 'compileWorker.ts'),
  // Beside compileWorker.mjs: packages/planner/src/threads/layoutWorkerEntry.mjs finds it there.
  layoutWorker: join(ROOT, 'packages', 'planner', 'src', 'threads', 'layoutWorker.ts'),
  // Beside compileWorker.mjs too: apps/api/src/plan/planWorkerEntry.mjs finds it there.
  planWorker: join(ROOT, 'apps', 'api', 'src', 'plan', 'planWorker.ts'),
};

/** Where the bin and the workers find each entry of a build in `dir`. */
export function builtEntries(dir = BUILD_DIR) {
  return {
    cli: join(dir, 'stagecraft.mjs'),
    worker: join(dir, 'compileWorker.mjs'),
    layoutWorker: join(dir, 'layoutWorker.mjs'),
    planWorker: join(dir, 'planWorker.mjs'),
  };
}

const toPosix = (path) => path.split(sep).join('/');
/** A path as messages show it: relative to the repository when inside it. */
const shown = (path) => (path.startsWith(ROOT + sep) ? toPosix(relative(ROOT, path)) : path);

/**
 * `{ fresh: true }`, or why the build must be made again: missing, incomplete (an entry or a chunk
 * it lists is gone), or one of the files it was made from (this script included) is gone or not
 * the file it was built from: its size or modification time differs from the one recorded at the
 * build, so a file put back with an older time (a restored backup, `cp -p`, a tar) counts too. A
 * stat per input, a few hundred, so cheap enough for the bin to ask on every run: the paths are
 * joined as text (no normalising) and a missing file is an answer, not an exception.
 */
export function buildState(dir = BUILD_DIR) {
  const manifest = join(dir, MANIFEST);
  if (!existsSync(manifest)) return { fresh: false, reason: `${shown(dir)} is missing` };
  let inputs;
  let outputs;
  try {
    ({ inputs, outputs } = JSON.parse(readFileSync(manifest, 'utf8')));
  } catch {}
  const incomplete = { fresh: false, reason: `${shown(dir)} is incomplete` };
  if (!isStampMap(inputs) || !Array.isArray(outputs)) return incomplete;
  const entries = Object.values(builtEntries(dir)).map((f) => basename(f));
  // Source maps are read only when a stack is printed (STAGECRAFT_DEBUG=1): not worth a stat each.
  for (const f of new Set([...entries, ...outputs.filter((o) => !o.endsWith('.map'))]))
    if (statSync(`${dir}/${f}`, { throwIfNoEntry: false }) === undefined) return incomplete;
  for (const [input, stamp] of Object.entries(inputs)) {
    const st = statSync(`${ROOT}/${input}`, { throwIfNoEntry: false });
    if (st === undefined) return { fresh: false, reason: `${input} is gone since the last build` };
    if (st.mtimeMs !== stamp[0] || st.size !== stamp[1])
      return { fresh: false, reason: `${input} changed since the last build` };
  }
  return { fresh: true };
}

/** The manifest's `inputs`: each file's `[mtimeMs, size]` as the build saw it. */
function isStampMap(inputs) {
  return (
    typeof inputs === 'object' &&
    inputs !== null &&
    !Array.isArray(inputs) &&
    Object.values(inputs).every((s) => Array.isArray(s) && s.length === 2)
  );
}

/**
 * What each input looked like when the build started reading it. A file modified after that may
 * or may not be in the bundle as it is now: it gets a stamp no file has, so the next check calls
 * the build stale.
 */
function inputStamps(inputs, started) {
  const stamps = {};
  for (const input of inputs) {
    const st = statSync(join(ROOT, input));
    stamps[input] = st.mtimeMs >= started ? [-1, -1] : [st.mtimeMs, st.size];
  }
  return stamps;
}

/**
 * A module's `import.meta.url` in the bundle is the URL of the file it was bundled into: each
 * source's is put back (relative to the build, so the checkout may move), and the paths that
 * modules resolve from their own place (package.json, runtime/, the repository root) stay right.
 */
function sourceLocation(dir) {
  return {
    name: 'source-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const url = `new URL(${JSON.stringify(toPosix(relative(dir, args.path)))}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** Builds into a fresh directory beside `dir` (apps/cli/dist), then moves it in (putInPlace). */
export async function build(dir = BUILD_DIR) {
  const { build: esbuild } = await import('esbuild');
  // A source saved from here on may or may not be in the bundle: inputStamps marks it stale.
  const started = Date.now();
  const staging = `${dir}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await buildInto(esbuild, dir, staging, started);
  } finally {
    // A failed build leaves no half-written directory beside the build.
    rmSync(staging, { recursive: true, force: true });
  }
}

async function buildInto(esbuild, dir, staging, started) {
  const result = await esbuild({
    entryPoints: ENTRIES,
    bundle: true,
    // The two entries share the compiler in one chunk; `serve` (the HTTP server) is a chunk of
    // its own that the one-shot commands never load.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    // Whitespace and syntax minified (smaller code parses faster), identifiers not: a function
    // keeps its own name (fastify's plugins read them) without esbuild's `keepNames`, whose
    // `__name` call per function and class at load, and per closure each time one is made, cost
    // more than parsing the longer names (docs/performance.md, "Cold": 3–6% of the CPU of
    // `stagecraft validate` and of a cold `stagecraft simulate`). Stack traces map back to the
    // sources through the maps (the bin loads them with STAGECRAFT_DEBUG=1).
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    // The native SQLite binding loads from node_modules as installed. fastify's JSON-schema
    // compilers are never loaded (apps/api/src/app.ts gives it compilers of its own): left out of
    // the server's chunk, they are not parsed at its start, and would load from node_modules.
    external: ['better-sqlite3', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
    // Bundled CommonJS packages (fastify's) call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __stagecraftRequire } from 'node:module'; const require = __stagecraftRequire(import.meta.url);",
    },
    plugins: [sourceLocation(dir)],
    metafile: true,
    logLevel: 'warning',
  });
  const sources = Object.keys(result.metafile.inputs)
    .map((input) => toPosix(relative(ROOT, resolve(input))))
    .filter((input) => !input.startsWith('node_modules/'));
  const inputs = [
    ...sources,
    ...packageFiles(sources),
    toPosix(relative(ROOT, fileURLToPath(import.meta.url))),
    toPosix(INSTALL_STAMP),
  ];
  const outputs = readdirSync(staging).sort();
  const stamps = inputStamps([...new Set(inputs)].sort(), started);
  writeFileSync(join(staging, MANIFEST), `${JSON.stringify({ inputs: stamps, outputs }, null, 1)}\n`);
  putInPlace(staging, dir, outputs);
}

/**
 * The package.json of every workspace package a source comes from: its `exports` and
 * `sideEffects` decide what esbuild resolves and keeps, so an edit to one changes the bundle.
 */
function packageFiles(sources) {
  const packages = new Set();
  for (const source of sources) {
    const m = /^((?:apps|packages)\/[^/]+)\//.exec(source);
    if (m && existsSync(join(ROOT, m[1], 'package.json'))) packages.add(`${m[1]}/package.json`);
  }
  return [...packages];
}

/**
 * Moves a build from `staging` into `dir` while commands may be running from it: chunks (named by
 * their content) first, then the entries, then the list of inputs, each an atomic rename. A
 * command starting meanwhile loads the old entries with the old chunks or the new ones with
 * theirs, so the previous build's files stay until the next build.
 */
function putInPlace(staging, dir, outputs) {
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')).outputs ?? [];
  } catch {}
  mkdirSync(dir, { recursive: true });
  const entries = Object.values(builtEntries(staging)).map((f) => basename(f));
  const last = [...entries, ...entries.map((f) => `${f}.map`)];
  for (const f of outputs.filter((f) => !last.includes(f))) renameSync(join(staging, f), join(dir, f));
  for (const f of outputs.filter((f) => last.includes(f))) renameSync(join(staging, f), join(dir, f));
  renameSync(join(staging, MANIFEST), join(dir, MANIFEST));
  const kept = new Set([...outputs, ...previous, MANIFEST]);
  for (const f of readdirSync(dir)) if (!kept.has(f)) rmSync(join(dir, f), { recursive: true, force: true });
}

/** Builds when missing or stale (saying why); exits the process when the build fails. */
export async function ensureBuilt() {
  const state = buildState();
  if (state.fresh) return;
  console.log(`${state.reason}: building the CLI, the API server and its workers (scripts/build.mjs)`);
  try {
    await build();
  } catch (e) {
    console.error(`the build failed: ${e instanceof Error ? e.message : String(e)}`);
    console.error('fix it, then run this again (the sources still run: STAGECRAFT_FROM_SOURCES=1)');
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  if (process.argv.includes('--force')) await build();
  else if (buildState().fresh) console.log(`${shown(BUILD_DIR)} is up to date`);
  else await ensureBuilt();
}
