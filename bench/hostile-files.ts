/**
 * The hostile-file cases of apps/cli/test/hostileFiles.ts, each run as a user runs it (the real
 * `stagecraft` bin in a child process) under a heap cap, printed as the rows of the table in
 * docs/reliability.md: exit status, wall time, peak resident memory (GNU time's %M) and the first
 * line of the answer. Not a test: the test asserts; this measures.
 *
 *   npx tsx bench/hostile-files.ts
 *   npx tsx bench/hostile-files.ts --heap-mb 1024 --only Piper
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HOSTILE_CASES } from '../apps/cli/test/hostileFiles.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'apps', 'cli', 'bin', 'stagecraft.mjs');
const { values } = parseArgs({
  options: { 'heap-mb': { type: 'string', default: '1024' }, only: { type: 'string' } },
});
const dir = mkdtempSync(join(tmpdir(), 'stagecraft-hostile-bench-'));

console.log('| case | exit | time | peak memory | first line |');
console.log('| --- | --- | --- | --- | --- |');
for (const c of HOSTILE_CASES) {
  if (values.only && !c.name.includes(values.only)) continue;
  const argv = c.make(dir, join(ROOT, 'examples'));
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'peak %M', process.execPath, `--max-old-space-size=${values['heap-mb']}`, BIN, ...argv],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 300_000, killSignal: 'SIGKILL' },
  );
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('Command exited'));
  const peak = Number(/^peak (\d+)$/.exec(lines.pop() ?? '')?.[1] ?? Number.NaN);
  const first = (lines[0] ?? r.stdout.split('\n')[0] ?? '').replaceAll(dir, '…').replaceAll(ROOT, '');
  const shown = first.length > 160 ? `${first.slice(0, 160)}…` : first;
  const more = lines.length > 1 ? ` (${lines.length} lines)` : '';
  console.log(
    `| ${c.name} | ${r.status ?? r.signal} | ${seconds} s | ${Math.round(peak / 1024)} MiB | \`${shown.replaceAll('|', '\\|')}\`${more} |`,
  );
}
