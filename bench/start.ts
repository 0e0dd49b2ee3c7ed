/**
 * How fast the `stagecraft` bin starts (issue 34): `stagecraft --help`, `stagecraft validate` of
 * an example, and `stagecraft serve` until it answers its first `GET /api/health` (from the spawn
 * to the first 200), on a new database (seeded with the examples) and on an existing one. Each
 * figure is the median of `--runs` runs, wall time and CPU time (user + system: the children's
 * for the one-shot commands, the server's own with its threads when it first answers). CPU time
 * is what a loaded machine barely changes; compare wall times only at the same load. Not a test:
 * it asserts nothing.
 *
 *   npx tsx bench/start.ts                               # this checkout's bin, 10 runs each
 *   npx tsx bench/start.ts --bin <other checkout>/apps/cli/bin/stagecraft.mjs --runs 7
 *
 * The bin runs its build (apps/cli/dist) only when it is up to date: run `npm run build` in the
 * checkout first, or the figures are those of the sources through tsx.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { childrenCpuMs, cpuMs } from './processCpu.ts';

const { values } = parseArgs({
  options: {
    bin: { type: 'string', default: join(import.meta.dirname, '..', 'apps', 'cli', 'bin', 'stagecraft.mjs') },
    runs: { type: 'string', default: '10' },
  },
});
const BIN = resolve(values.bin);
const RUNS = Number(values.runs);
const CHECKOUT = resolve(dirname(BIN), '..', '..', '..');
const EXAMPLE = join(CHECKOUT, 'examples', 'interleaved-1f1b-p4-v2-m8.json');
/** The server is given up on after this long: a broken build, not a slow start. */
const SERVER_TIMEOUT_MS = 60_000;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** One run of a one-shot command; exits the bench if the command fails. */
function oneShot(args: string[]): Sample {
  const cpuBefore = childrenCpuMs() ?? Number.NaN;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: CHECKOUT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) {
    console.error(`stagecraft ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim()}`);
    process.exit(1);
  }
  return { wallMs, cpuMs: (childrenCpuMs() ?? Number.NaN) - cpuBefore };
}

/** A port nothing listens on now, so the bench can poll the server from the moment it spawns it. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Spawns `serve` on `db` and polls /api/health until it answers 200; stops the server after. */
async function serverReady(db: string): Promise<Sample> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--db', db], {
    cwd: CHECKOUT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr.trim()}`);
      if (performance.now() - t0 > SERVER_TIMEOUT_MS) throw new Error(`no answer in 60 s: ${stderr.trim()}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (res.status === 200) {
          const wallMs = performance.now() - t0;
          await res.arrayBuffer();
          return { wallMs, cpuMs: cpuMs(child.pid) ?? Number.NaN };
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function report(name: string, samples: Sample[]): void {
  const wall = median(samples.map((s) => s.wallMs));
  const cpu = median(samples.map((s) => s.cpuMs));
  console.log(`${name.padEnd(34)} ${wall.toFixed(0).padStart(8)} ${cpu.toFixed(0).padStart(8)}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'stagecraft-start-'));
try {
  console.log(`stagecraft start, ${BIN}`);
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}`);
  console.log(
    `median of ${RUNS} runs (after one unmeasured run of each); load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(`${'command'.padEnd(34)} ${'wall ms'.padStart(8)} ${'cpu ms'.padStart(8)}`);
  const help = ['--help'];
  const validate = ['validate', EXAMPLE];
  oneShot(help);
  oneShot(validate);
  const runs = Array.from({ length: RUNS }, (_, i) => i);
  // Alternated, so a change of load falls on both alike.
  const helpSamples: Sample[] = [];
  const validateSamples: Sample[] = [];
  for (const _ of runs) {
    helpSamples.push(oneShot(help));
    validateSamples.push(oneShot(validate));
  }
  report('--help', helpSamples);
  report('validate <example>', validateSamples);
  const existing = join(scratch, 'existing.sqlite');
  await serverReady(existing);
  const fresh: Sample[] = [];
  const reopened: Sample[] = [];
  for (const i of runs) {
    fresh.push(await serverReady(join(scratch, `new-${i}.sqlite`)));
    reopened.push(await serverReady(existing));
  }
  report('serve: /api/health, new database', fresh);
  report('serve: /api/health, existing db', reopened);
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(2)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
