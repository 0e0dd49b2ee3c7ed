/**
 * What the first compile + simulate of a new process costs, pass by pass, against the same
 * process's warm runs (issue 34's cold target). Each of `--processes` new processes (the sources
 * through tsx: the same JavaScript the build bundles) compiles and simulates the target design
 * `--runs` times and reports, for each run, the main thread's CPU time of every pass (each pass's
 * `run` is timed from here), of the rest of the compile (expanding the program, building the DAG)
 * and of simulate: /proc/thread-self/schedstat, nanoseconds, so the optimising compiler's and the
 * collector's background threads are not in it, and a loaded machine barely moves it. The table
 * shows each piece's first run against its warm time (the median of the last third of the runs):
 * what the first run pays for code still interpreted or at its baseline tier. Loading the modules is not in it: see
 * `stagecraft simulate --json` under `node --cpu-prof` (docs/performance.md). Not a test.
 *
 *   npx tsx bench/firstRun.ts                     # 3 processes, 12 runs each
 *   npx tsx bench/firstRun.ts --processes 5 --runs 15
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Design } from '@stagecraft/ir';
import { PASSES, type Pass } from '@stagecraft/passes';
import { runDesign, simulateRun } from '@stagecraft/workflow';

/** The target design of bench/compile-simulate.ts (issue 34): interleaved 1F1B, p=32 v=2 m=512. */
const TARGET: Design = {
  format: 'stagecraft/design@1',
  name: 'interleaved-1f1b p=32 v=2 m=512',
  model: {
    kind: 'synthetic',
    stages: 64,
    costs: { F: 0.5, BI: 0.5, BW: 0.5 },
    activationBytes: 2 ** 27,
    paramBytes: 2 ** 29,
    outputBytes: 2 ** 24,
  },
  cluster: { kind: 'ideal', devices: 32 },
  directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: 512, chunks: 2 }],
};

interface RunTimes {
  /** Main-thread CPU ms of each pass, of the rest of the compile and of `simulate`. */
  passes: Record<string, number>;
  compileCpuMs: number;
  simulateCpuMs: number;
}

/** CPU ns of this thread alone: the first field of schedstat (proc(5)). */
function threadCpuMs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
}

/** Wraps every pass's `run` to add its main-thread CPU ms to `current()` (two reads of /proc per pass). */
function timePasses(current: () => Record<string, number>): void {
  for (const pass of PASSES as Pass[]) {
    const run = pass.run;
    (pass as { run: Pass['run'] }).run = (dag, ctx) => {
      const c0 = threadCpuMs();
      try {
        return run.call(pass, dag, ctx);
      } finally {
        const into = current();
        into[pass.name] = (into[pass.name] ?? 0) + threadCpuMs() - c0;
      }
    };
  }
}

function child(runs: number): RunTimes[] {
  const out: RunTimes[] = [];
  let passes: Record<string, number> = {};
  timePasses(() => passes);
  for (let i = 0; i < runs; i++) {
    passes = {};
    const c0 = threadCpuMs();
    const run = runDesign(TARGET, { keepSnapshots: false });
    const c1 = threadCpuMs();
    if (!run.ok) throw new Error('the target design does not compile');
    simulateRun(run, false);
    const c2 = threadCpuMs();
    let inPasses = 0;
    for (const ms of Object.values(passes)) inPasses += ms;
    passes['expand + build-dag + other'] = c1 - c0 - inPasses;
    passes.simulate = c2 - c1;
    out.push({ passes, compileCpuMs: c1 - c0, simulateCpuMs: c2 - c1 });
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const { values } = parseArgs({
  options: {
    child: { type: 'boolean', default: false },
    processes: { type: 'string', default: '3' },
    runs: { type: 'string', default: '12' },
    // V8 flags for the new processes only, e.g. --node-flags=--maglev (compare with none).
    'node-flags': { type: 'string', default: '' },
  },
});
const runs = Math.max(3, Number(values.runs) || 12);
if (values.child) {
  process.stdout.write(JSON.stringify(child(runs)));
  process.exit(0);
}

const processes = Math.max(1, Number(values.processes) || 3);
const script = new URL(import.meta.url).pathname;
const nodeFlags = values['node-flags'].split(' ').filter((f) => f !== '');
const load0 = loadavg()[0]!;
const all: RunTimes[][] = [];
for (let p = 0; p < processes; p++)
  all.push(
    JSON.parse(
      execFileSync(
        process.execPath,
        [...process.execArgv, ...nodeFlags, script, '--child', '--runs', String(runs)],
        {
          encoding: 'utf8',
        },
      ),
    ),
  );
const warmFrom = runs - Math.max(1, Math.floor(runs / 3));
const firsts = all.map((r) => r[0]!);
const warms = all.flatMap((r) => r.slice(warmFrom));
const passNames = Object.keys(firsts[0]!.passes);
const rows = passNames
  .map((pass) => {
    const first = median(firsts.map((r) => r.passes[pass] ?? 0));
    const warm = median(warms.map((r) => r.passes[pass] ?? 0));
    return { pass, first, warm };
  })
  .filter((r) => r.first >= 0.5)
  // Largest first-run excess first: where shaping code for a first run pays.
  .sort((a, b) => b.first - b.warm - (a.first - a.warm));
console.log(
  `${processes} new processes${nodeFlags.length ? ` (${nodeFlags.join(' ')})` : ''}, ${runs} runs each; first run against warm (median of runs ${warmFrom + 1}-${runs}); load ${load0.toFixed(1)}-${loadavg()[0]!.toFixed(1)}\n`,
);
console.log(
  `main-thread CPU ms\n${'pass'.padEnd(28)}${'first'.padStart(8)}${'warm'.padStart(8)}${'first/warm'.padStart(12)}`,
);
for (const r of rows)
  console.log(
    `${r.pass.padEnd(28)}${r.first.toFixed(1).padStart(8)}${r.warm.toFixed(1).padStart(8)}${(r.first / r.warm).toFixed(1).padStart(11)}x`,
  );
const cpu = (xs: RunTimes[], k: 'compileCpuMs' | 'simulateCpuMs') => median(xs.map((r) => r[k]));
console.log(
  `\nmain thread CPU ms, first run: compile ${cpu(firsts, 'compileCpuMs').toFixed(1)} + simulate ${cpu(firsts, 'simulateCpuMs').toFixed(1)}; warm: compile ${cpu(warms, 'compileCpuMs').toFixed(1)} + simulate ${cpu(warms, 'simulateCpuMs').toFixed(1)}`,
);
console.log(
  `first runs' main-thread CPU (compile + simulate) per process: ${firsts.map((r) => (r.compileCpuMs + r.simulateCpuMs).toFixed(0)).join(', ')} ms`,
);
