// Every example's outputs through the CLI, for proving a refactoring changed no behaviour:
// the plan, the metrics (timing fields removed), and each export format, one file each.
//   node scripts/outputs.mjs <dir>                  write them to <dir>
//   node scripts/outputs.mjs <dir> --compare <old>  write, then list every file that differs
// Exit status 1 when --compare finds a difference. Runs the built CLI (built first when missing or
// stale); STAGECRAFT_FROM_SOURCES=1 runs the sources instead.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from './build.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'apps/cli/bin/stagecraft.mjs');
const [dir, flag, old] = process.argv.slice(2);
if (!dir || (flag && (flag !== '--compare' || !old))) {
  console.error('usage: node scripts/outputs.mjs <dir> [--compare <old-dir>]');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
if (process.env.STAGECRAFT_FROM_SOURCES !== '1') await ensureBuilt();

/** Keys whose values are wall-clock measurements, not results. */
const TIMING_KEYS = new Set(['timings', 'compileMs', 'simulateMs', 'generatedAt']);
function withoutTimings(value) {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (!TIMING_KEYS.has(k)) out[k] = withoutTimings(v);
    return out;
  }
  return value;
}

function cli(args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return `${r.stdout}${r.stderr ? `\n--- stderr\n${r.stderr}` : ''}\n--- exit ${r.status}\n`;
}

const examples = readdirSync(join(ROOT, 'examples'))
  .filter((f) => f.endsWith('.json'))
  .sort();
const runs = [
  ['plan', ['export', '--format', 'plan']],
  ['piper', ['export', '--format', 'piper']],
  ['torch-csv', ['export', '--format', 'torch-csv']],
  ['torch-csv-comms', ['export', '--format', 'torch-csv', '--torch-format', 'compute_comms']],
  ['chrome-trace', ['export', '--format', 'chrome-trace']],
  ['metrics', ['simulate', '--json']],
  ['validate', ['validate']],
];
for (const file of examples) {
  const design = join(ROOT, 'examples', file);
  for (const [name, args] of runs) {
    let text = cli([args[0], design, ...args.slice(1)]);
    if (name === 'metrics' || name === 'chrome-trace') {
      const body = text.slice(0, text.indexOf('\n--- '));
      try {
        text = `${JSON.stringify(withoutTimings(JSON.parse(body)), null, 1)}${text.slice(body.length)}`;
      } catch {}
    }
    writeFileSync(join(dir, `${basename(file, '.json')}.${name}.txt`), text);
  }
  process.stdout.write('.');
}
process.stdout.write('\n');

if (old) {
  const differ = readdirSync(dir).filter((f) => {
    try {
      return readFileSync(join(dir, f), 'utf8') !== readFileSync(join(old, f), 'utf8');
    } catch {
      return true;
    }
  });
  const missing = readdirSync(old).filter((f) => !readdirSync(dir).includes(f));
  for (const f of [...differ, ...missing]) console.log(`differs: ${f}`);
  console.log(
    `${readdirSync(dir).length - differ.length} identical, ${differ.length + missing.length} differ`,
  );
  process.exit(differ.length + missing.length ? 1 : 0);
}
console.log(`${readdirSync(dir).length} outputs in ${dir}`);
