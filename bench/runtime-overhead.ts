/**
 * The runtime's overhead per instruction. Each design runs on PyTorch through the runtime's own
 * worker (bench/runtime-cpu.py --json: one process per device, gloo, every step's measured
 * instructions and the CPU time of every thread kept). For each step after the warm-up, the plan is
 * simulated with every compute instruction costing exactly what it measured in that step and
 * communication free (ideal cluster): the critical path of measured compute. With more processes
 * than cores the step can be no shorter than the compute the cores must do either (Σ compute ÷
 * cores), so the bound is the larger of the two. That step's span (first instruction's start to
 * last one's end, all devices) minus the bound, over the instructions one core must issue (the
 * most any device issues, or all devices' ÷ cores when there are more processes than cores), is
 * what the runtime adds per instruction (loop, waits, Python, gloo's messages). The median over
 * the steps is printed with its quartiles: one step a neighbour delayed moves a quartile, not the
 * median, and the wall figure and its bound always come from the same step.
 * Beside it: CPU time per instruction (every thread of every device, compute included) and the
 * part of it beyond what the same F and B cost in a plain loop on one process
 * (bench/runtime-plain-loop.py, run after it: wall and CPU time), both CPU figures, which a
 * shared machine's load moves far less than wall time (for pipelines without data parallelism: the
 * plain loop computes one replica's step). The plain loop's wall time is the machine's speed of
 * the moment. The load average is printed
 * before, after and at each row. Not a test: it asserts nothing.
 *
 * With `--old <checkout>`, each design runs on this checkout's runtime and then on that one's
 * (its runtime/ folder, the same interpreter), `--rounds` times, so old and new code alternate on
 * the same machine within a minute.
 *
 *   npx tsx bench/runtime-overhead.ts [--old <checkout>] [--rounds n] [--steps 30] [--warmup 5] [--width 16] [design …]
 *     # default designs: 1F1B, ZB-H1 and DualPipeV on 4 ranks
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Instruction, Plan } from '@stagecraft/ir';
import { parseDesignText } from '@stagecraft/ir';
import { pythonInterpreter, RUNTIME_DIR } from '@stagecraft/launch';
import { compile } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';

const ROOT = join(import.meta.dirname, '..');
const { values: flags, positionals: designs } = parseArgs({
  allowPositionals: true,
  options: {
    old: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    // 30 steps, 5 left out: a run's first step takes 3–4 times the next ones (gloo's connections,
    // the allocator's first blocks: 151 ms against 40–52 ms for steps 2–5 of 1F1B p=2, 21:45 UTC
    // 2026-12-07), the next few are left out for margin; 25 steps give quartiles worth printing.
    steps: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    width: { type: 'string', default: '16' },
  },
});
function whole(name: string, value: string | undefined, least: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < least)
    throw new Error(`--${name}: expected a whole number ≥ ${least}, got ${value}`);
  return n;
}
const rounds = whole('rounds', flags.rounds, 1);
const warmup = whole('warmup', flags.warmup, 0);
const steps = whole('steps', flags.steps, warmup + 1);
const width = whole('width', flags.width, 1);
const oldRuntime = flags.old === undefined ? undefined : join(resolve(flags.old), 'runtime');
if (oldRuntime && !existsSync(join(oldRuntime, 'stagecraft_runtime')))
  throw new Error(`--old: ${flags.old} has no runtime/stagecraft_runtime`);
const files = designs.length
  ? designs
  : ['1f1b-p4-m8.json', 'zb-h1-p4-m8.json', 'dualpipev-p4-m10.json'].map((f) => join(ROOT, 'examples', f));

/** A Python script of bench/, with the interpreter the CLI would use and `runtime` first on its path. */
function python(script: string, args: string[], runtime: string): string {
  const r = spawnSync(pythonInterpreter(), [join(ROOT, 'bench', script), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    // Scripts outside the package: they find the runtime through PYTHONPATH.
    env: { ...process.env, PYTHONPATH: runtime },
  });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** The value at fraction `q` of the sorted values (nearest rank). */
const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]!;
};

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP', 'OFFLOAD', 'RELOAD']);

/** [stream, id, start s, end s] as the runtime's scheduler records an issued instruction. */
type Event = [string, string, number, number];
/** One device of a run, as bench/runtime-cpu.py --json prints it: per step its wall (s), CPU (s)
 * of the loop's thread, waiter threads and other threads, instructions and events. */
type DeviceRun = { rank: number; steps: [number, [number, number, number], number, Event[] | null][] };

/** The critical path of one step's measured compute (ms): the plan with each compute instruction
 * at its measured time, communication free. */
function criticalPathMs(plan: Plan, measured: Map<string, number>): number {
  const copy = structuredClone(plan);
  for (const d of copy.devices)
    for (const s of d.streams)
      for (const ins of s.instructions as Instruction[]) {
        if (!COMPUTE.has(ins.op)) continue;
        const c = ins as { ms?: number; flops?: number; members?: { ms?: number }[] };
        c.ms = measured.get(`${d.device}|${ins.id}`) ?? 0;
        delete c.flops;
        for (const m of c.members ?? []) m.ms = 0;
      }
  copy.cluster = { kind: 'ideal', devices: copy.devices.length } as Plan['cluster'];
  const sim = simulate(copy, { keepTimeline: false });
  if (!sim.ok) throw new Error(sim.errors[0]!.message);
  return sim.sim.makespanMs;
}

/** The figures of one step: wall span, its bound, overhead and CPU per instruction. */
function stepFigures(
  plan: Plan,
  devices: DeviceRun[],
  step: number,
  perCore: number,
  cores: number,
  plainStepCpuUs: number,
) {
  const measured = new Map<string, number>();
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  let compute = 0;
  let cpu = 0;
  let instructions = 0;
  const ops = new Map<string, string>();
  for (const d of plan.devices)
    for (const s of d.streams) for (const i of s.instructions) ops.set(`${d.device}|${i.id}`, i.op);
  for (const dev of devices) {
    const [, kinds, count, events] = dev.steps[step]!;
    cpu += kinds[0] + kinds[1] + kinds[2];
    instructions += count;
    for (const [, id, start, end] of events ?? []) {
      first = Math.min(first, start);
      last = Math.max(last, end);
      const key = `${dev.rank}|${id}`;
      if (!COMPUTE.has(ops.get(key) ?? '')) continue;
      measured.set(key, (end - start) * 1000);
      compute += (end - start) * 1000;
    }
  }
  const span = (last - first) * 1000;
  const critical = criticalPathMs(plan, measured);
  const coresWork = compute / cores;
  const bound = Math.max(critical, coresWork);
  return {
    span,
    critical,
    coresWork,
    overheadUs: ((span - bound) / perCore) * 1000,
    cpuUs: (cpu / instructions) * 1e6,
    beyondPlainUs: (cpu * 1e6 - plainStepCpuUs) / instructions,
  };
}

/** One design on one runtime: the figures of one row. */
function measure(file: string, runtimeDir: string): string {
  const parsed = parseDesignText(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.errors[0]!.message}`);
  const compiled = compile(parsed.design);
  if (!compiled.ok) throw new Error(`${file}: ${compiled.errors[0]!.message}`);
  const plan = JSON.parse(JSON.stringify(compiled.plan)) as Plan;
  const scratch = mkdtempSync(join(tmpdir(), 'runtime-overhead-'));
  const planFile = join(scratch, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  let devices: DeviceRun[];
  let plain: number[];
  try {
    const out = python(
      'runtime-cpu.py',
      ['--json', '--steps', String(steps), '--width', String(width), '--runtime', runtimeDir, planFile],
      runtimeDir,
    );
    devices = (JSON.parse(out) as DeviceRun[]).filter((d) => d.steps.length > 0);
    plain = python('runtime-plain-loop.py', [planFile, String(width), 'float32', '5'], runtimeDir)
      .trim()
      .split(' ')
      .map(Number);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const counts = plan.devices.map((d) => d.streams.reduce((n, s) => n + s.instructions.length, 0));
  // Processes beyond the cores wait for one: the cores' share of the compute bounds the step too,
  // and each core issues its share of every device's instructions, whose overheads add up there.
  const cores = Math.min(availableParallelism(), plan.devices.length);
  const perCore = Math.max(...counts, counts.reduce((a, b) => a + b, 0) / cores);
  const figures = Array.from({ length: steps - warmup }, (_, i) =>
    stepFigures(plan, devices, warmup + i, perCore, cores, plain[1]! * plain[2]!),
  );
  const mid = (f: (x: (typeof figures)[number]) => number) => quantile(figures.map(f), 0.5);
  const quartiles = (f: (x: (typeof figures)[number]) => number) =>
    `${quantile(figures.map(f), 0.25).toFixed(0)}–${quantile(figures.map(f), 0.75).toFixed(0)}`;
  const overhead = mid((x) => x.overheadUs);
  const bound = mid((x) => Math.max(x.critical, x.coresWork));
  const by = mid((x) => x.critical) >= mid((x) => x.coresWork) ? 'critical path' : `compute ÷ ${cores} cores`;
  return [
    parsed.design.name,
    mid((x) => x.span).toFixed(2),
    `${bound.toFixed(2)} (${by})`,
    perCore.toFixed(0),
    `${overhead.toFixed(0)} (${quartiles((x) => x.overheadUs)})`,
    `${mid((x) => x.cpuUs).toFixed(0)} (${quartiles((x) => x.cpuUs)})`,
    `${mid((x) => x.beyondPlainUs).toFixed(0)} (${quartiles((x) => x.beyondPlainUs)})`,
    plain[0]!.toFixed(0),
    plain[1]!.toFixed(0),
    (overhead / plain[0]!).toFixed(2),
  ].join(' | ');
}

console.log(
  `Steps ${warmup + 1}–${steps} of ${steps} per run, medians (quartiles in brackets); ${availableParallelism()} cores; bound = max(critical path of measured compute, Σ compute ÷ cores).`,
);
console.log(
  'runtime | design | median step span ms | bound ms | instructions per core | overhead per instruction µs | CPU µs per instruction | CPU beyond the plain loop µs per instruction | plain loop µs per instruction | plain loop CPU µs per instruction | overhead / plain loop',
);
console.log(`load average (1, 5, 15 min) before: ${load()}`);
const runtimes: [string, string][] = [['this checkout', RUNTIME_DIR]];
if (oldRuntime) runtimes.push([`old (${flags.old})`, oldRuntime]);
for (let round = 0; round < rounds; round++)
  for (const file of files)
    for (const [name, runtimeDir] of runtimes) {
      const row = measure(file, runtimeDir);
      console.log(`${name} | ${row} | load ${load()} at ${new Date().toISOString().slice(11, 19)} UTC`);
    }
console.log(`load average (1, 5, 15 min) after: ${load()}`);
