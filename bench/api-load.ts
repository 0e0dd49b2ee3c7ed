/**
 * Load on `POST /api/compile` over loopback: a typical design (1F1B, p=8, m=32, synthetic model,
 * ideal cluster) at concurrency 1, 8 and 32. Starts `stagecraft serve` on a free port with a
 * fresh database, prints p50 / p99 latency, throughput, errors and the server's RSS before and
 * after each run, then stops the server. Each run is bounded in requests and in time. Not a test:
 * it asserts nothing.
 *
 *   npx tsx bench/api-load.ts                       # 300 requests per run, at most 20 s each
 *   npx tsx bench/api-load.ts --requests 1000 --seconds 60
 *   npx tsx bench/api-load.ts --mode fairness       # small compiles while two big ones run
 *   npx tsx bench/api-load.ts --mode search         # small compiles while a layout search runs
 *
 * Three workloads:
 * - same design: every request sends the same design (the content-hash cache answers);
 * - distinct designs: every request differs (a cost changes), so each one is compiled and simulated;
 * - edits (designId + revision, concurrency 1): each request is the next revision of one design
 *   with its last directive edited, so the worker reruns only the passes from that directive on.
 *
 * `--mode fairness` instead sends two big designs at once (interleaved 1F1B, p=32, m=2048: about
 * 900,000 ops from a 300-byte request, asking for every part of the answer) and, while both are unanswered, small distinct designs one
 * after another: their p50 / p99 is how long a user waits while someone else compiles big.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Design, Directive } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { cpuMs } from './processCpu.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '20' },
    mode: { type: 'string', default: 'load' },
  },
});
const REQUESTS = Number(values.requests);
const SECONDS = Number(values.seconds);
const ROOT = join(import.meta.dirname, '..');

function design(F: number): Design {
  return {
    format: 'stagecraft/design@1',
    name: '1F1B, p=8, m=32',
    model: {
      kind: 'synthetic',
      stages: 8,
      costs: { F, BI: 1, BW: 1 },
      activationBytes: 2 ** 28,
      paramBytes: 2 ** 30,
      outputBytes: 2 ** 24,
    },
    cluster: { kind: 'ideal', devices: 8 },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 32 }],
  };
}

/** The schedule written out as its Piper directives plus a stream knob, for the edit workload. */
function editable(): Design {
  const d = design(1);
  const r = compile(d, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return {
    ...d,
    directives: [...r.program.map((e) => e.directive), { op: 'stream', name: 'p2p', priority: 0 }],
  };
}

function serve(db: string): Promise<{ child: ChildProcess; url: string }> {
  const bin = join(ROOT, 'apps', 'cli', 'bin', 'stagecraft.mjs');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--db', db], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /running at (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

async function rss(url: string): Promise<number> {
  const h = (await (await fetch(`${url}api/health`)).json()) as { rssBytes: number };
  return h.rssBytes;
}

interface Run {
  latencies: number[];
  errors: number;
  wallMs: number;
  bytes: number;
}

async function load(url: string, concurrency: number, body: (i: number) => unknown): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let next = 0;
  const t0 = performance.now();
  const until = t0 + SECONDS * 1000;
  const client = async () => {
    while (next < REQUESTS && performance.now() < until) {
      const i = next++;
      const payload = JSON.stringify(body(i));
      const t = performance.now();
      try {
        const res = await fetch(`${url}api/compile`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: payload,
        });
        const text = await res.text();
        bytes += text.length;
        if (res.status !== 200) {
          errors++;
          if (errors <= 3) console.error(`  ${res.status}: ${text.slice(0, 200)}`);
        }
      } catch (e) {
        errors++;
        if (errors <= 3) console.error(`  ${e instanceof Error ? e.message : String(e)}`);
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { latencies, errors, wallMs: performance.now() - t0, bytes };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/** The big design of the fairness mode: interleaved 1F1B on 32 ranks, 2 chunks each, 2048 microbatches. */
function bigDesign(i: number): Design {
  return {
    format: 'stagecraft/design@1',
    name: `interleaved 1F1B, p=32, v=2, m=2048 (${i})`,
    model: { kind: 'synthetic', stages: 64, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 2 ** 20 },
    cluster: { kind: 'ideal', devices: 32 },
    directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: 2048, chunks: 2 }],
  };
}

/** One small distinct compile (its F cost `f`), answered in full: its status and milliseconds. */
async function smallCompile(url: string, f: number): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  const res = await fetch(`${url}api/compile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ design: design(f) }),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t };
}

async function fairness(url: string): Promise<void> {
  console.log('POST /api/compile: small designs (1F1B p=8 m=32, each distinct) at concurrency 1');
  console.log('while two big ones (interleaved 1F1B p=32 v=2 m=2048, every part included) are unanswered');
  console.log(
    `node ${process.version}, ${cpus()[0]?.model.trim() ?? 'cpu'} × ${cpus().length}; at most ${REQUESTS} small requests or ${SECONDS} s; loopback`,
  );
  // The same small requests with nothing else running: what the machine gives them at all.
  const alone: number[] = [];
  let n = 0;
  const aloneUntil = performance.now() + SECONDS * 500;
  while (alone.length < REQUESTS / 2 && performance.now() < aloneUntil) {
    alone.push((await smallCompile(url, 2 + ++n / 1e6)).ms);
  }
  console.log('');
  console.log(
    `small, alone: ${alone.length} requests, p50 ${quantile(alone, 0.5).toFixed(1)} ms, p99 ${quantile(alone, 0.99).toFixed(1)} ms`,
  );
  const t0 = performance.now();
  let pending = 2;
  const bigs = [1, 2].map(async (i) => {
    const res = await fetch(`${url}api/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Every part asked for (the default before big answers were trimmed): the worst case.
      body: JSON.stringify({
        design: bigDesign(i),
        include: { snapshots: 'summary', timeline: true, plan: true, dag: true },
      }),
    });
    const bytes = (await res.arrayBuffer()).byteLength;
    pending--;
    return { status: res.status, ms: performance.now() - t0, bytes };
  });
  // Let both reach the server and a worker before measuring.
  await new Promise((r) => setTimeout(r, 300));
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + SECONDS * 1000;
  while (pending === 2 && n < REQUESTS && performance.now() < until) {
    const { status, ms } = await smallCompile(url, 2 + ++n / 1e6);
    if (status !== 200) errors++;
    // Only answers given while both big compiles were still unanswered count.
    if (pending === 2) latencies.push(ms);
  }
  const answered = await Promise.all(bigs);
  console.log(
    `small, two big compiling: ${latencies.length} requests, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms, errors ${errors}`,
  );
  for (const [i, b] of answered.entries()) {
    console.log(`big ${i + 1}: ${b.status} after ${(b.ms / 1000).toFixed(1)} s, ${mib(b.bytes)}`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
}

/**
 * Small compiles alone, then while a layout search (`/api/plan-jobs`, Qwen3 1B's model on its
 * node, a budget of SECONDS + 30 s) runs on its own thread: their p50 / p99 is how long a user
 * waits for a compile while someone searches.
 */
async function searching(url: string): Promise<void> {
  console.log('POST /api/compile: small designs (1F1B p=8 m=32, each distinct) at concurrency 1');
  console.log("alone, then while a layout search of Qwen3 1B's model runs (POST /api/plan-jobs)");
  console.log(
    `node ${process.version}, ${cpus()[0]?.model.trim() ?? 'cpu'} × ${cpus().length}; at most ${REQUESTS} small requests or ${SECONDS} s each; loopback`,
  );
  let n = 0;
  const run = async (while_: () => boolean) => {
    const ms: number[] = [];
    let errors = 0;
    const until = performance.now() + SECONDS * 1000;
    while (ms.length < REQUESTS && performance.now() < until && while_()) {
      const r = await smallCompile(url, 3 + ++n / 1e6);
      if (r.status !== 200) errors++;
      ms.push(r.ms);
    }
    return { ms, errors };
  };
  const report = (what: string, r: { ms: number[]; errors: number }) =>
    console.log(
      `${what}: ${r.ms.length} requests, p50 ${quantile(r.ms, 0.5).toFixed(1)} ms, p99 ${quantile(r.ms, 0.99).toFixed(1)} ms, max ${Math.max(...r.ms).toFixed(1)} ms, errors ${r.errors}`,
    );
  console.log('');
  report('small, alone', await run(() => true));
  const design = JSON.parse(readFileSync(join(ROOT, 'examples', 'qwen3-1b-pp2-dp2-ep2-1f1b.json'), 'utf8'));
  const started = await fetch(`${url}api/plan-jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ design, budgetS: Math.min(120, SECONDS + 30) }),
  });
  const { id } = (await started.json()) as { id: string };
  const job = async () =>
    (await (await fetch(`${url}api/plan-jobs/${id}`)).json()) as {
      status: string;
      progress: { tried: number };
    };
  // Measure once the search is under way (its thread loaded, layouts being simulated).
  while ((await job()).progress.tried === 0) await new Promise((r) => setTimeout(r, 100));
  const during = await run(() => true);
  const state = await job();
  report('small, a search running', during);
  // Still running at the end: every one of these compiles was answered beside the search.
  console.log(`the search: ${state.status} at the end, ${state.progress.tried} layouts tried by then`);
  await fetch(`${url}api/plan-jobs/${id}`, { method: 'DELETE' });
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-'));
  const { child, url } = await serve(join(dir, 'bench.sqlite'));
  try {
    // Let the workers load before measuring.
    for (let i = 0; i < 5; i++) await load(url, 1, () => ({ design: design(2 + i) }));
    if (values.mode === 'fairness') {
      await fairness(url);
      return;
    }
    if (values.mode === 'search') {
      await searching(url);
      return;
    }
    console.log(`POST /api/compile, 1F1B p=8 m=32 (synthetic, ideal cluster), default include`);
    console.log(
      `node ${process.version}, ${cpus()[0]?.model.trim() ?? 'cpu'} × ${cpus().length}; ${REQUESTS} requests or ${SECONDS} s per run; loopback`,
    );
    console.log('');
    const header = [
      'workload',
      'conc',
      'requests',
      'p50 ms',
      'p99 ms',
      'req/s',
      'errors',
      'CPU ms/req',
      'KB/answer',
      'RSS before',
      'RSS after',
    ];
    const rows: string[][] = [];
    const same = design(1);
    let distinct = 1_000;
    const base = editable();
    let revision = 0;
    const workloads: [string, number, (i: number) => unknown][] = [
      ['same design', 1, () => ({ design: same })],
      ['same design', 8, () => ({ design: same })],
      ['same design', 32, () => ({ design: same })],
      ['distinct designs', 1, () => ({ design: design(1 + ++distinct / 1e6) })],
      ['distinct designs', 8, () => ({ design: design(1 + ++distinct / 1e6) })],
      ['distinct designs', 32, () => ({ design: design(1 + ++distinct / 1e6) })],
      // Again: memory settles at a plateau (bounded cache, workers' heaps) rather than growing.
      ['distinct designs', 32, () => ({ design: design(1 + ++distinct / 1e6) })],
      [
        'edits (incremental)',
        1,
        () => {
          revision++;
          const directives: Directive[] = [
            ...base.directives.slice(0, -1),
            { op: 'stream', name: 'p2p', priority: revision },
          ];
          return { design: { ...base, directives }, designId: 'bench-edits', revision };
        },
      ],
    ];
    for (const [name, conc, body] of workloads) {
      const before = await rss(url);
      const cpuBefore = cpuMs(child.pid);
      const r = await load(url, conc, body);
      const cpuAfter = cpuMs(child.pid);
      const after = await rss(url);
      const cpu =
        cpuBefore !== undefined && cpuAfter !== undefined
          ? ((cpuAfter - cpuBefore) / r.latencies.length).toFixed(1)
          : '-';
      rows.push([
        name,
        String(conc),
        String(r.latencies.length),
        quantile(r.latencies, 0.5).toFixed(1),
        quantile(r.latencies, 0.99).toFixed(1),
        (r.latencies.length / (r.wallMs / 1000)).toFixed(1),
        String(r.errors),
        cpu,
        (r.bytes / r.latencies.length / 1000).toFixed(0),
        mib(before),
        mib(after),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
    console.log('');
    console.log(
      `load average at the end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(', ')}`,
    );
    console.log('');
    const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
    const line = (cells: string[]) =>
      cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join('  ');
    console.log(line(header));
    for (const row of rows) console.log(line(row));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
