/**
 * The runtime's overhead per instruction: each design runs on PyTorch (`stagecraft run --trace`),
 * then the plan is simulated again with every compute instruction costing exactly what it measured
 * and communication free (ideal cluster), which gives the critical path of measured compute. The
 * median wall step (steps 2–9 of 9) minus that path (the last step's), over the most instructions
 * any device issues, is what the runtime adds per instruction (loop, waits, Python, gloo's ~110 µs
 * messages). The same F and B in a plain
 * loop on one process (bench/runtime-plain-loop.py), timed in the same run, give the machine's
 * speed of the moment: the ratio of the two is what a shared machine's load does not move as much.
 * The load average is printed before and after. Not a test: it asserts nothing.
 *
 * With `--old <checkout>`, each design runs on this checkout's runtime and then on that one's
 * (its runtime/ folder, the same interpreter), `--rounds` times, so old and new code alternate on
 * the same machine within a minute; the plain loop is timed again beside each run.
 *
 *   npx tsx bench/runtime-overhead.ts [--old <checkout>] [--rounds n] [design …]
 *     # default designs: 1F1B, ZB-H1 and DualPipeV on 4 ranks
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Instruction, Plan } from '@stagecraft/ir';
import { parseDesignText } from '@stagecraft/ir';
import { launchRuntime, measuredTrace, pythonInterpreter, RUNTIME_DIR } from '@stagecraft/launch';
import { compile } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';

const ROOT = join(import.meta.dirname, '..');
const { values: flags, positionals: designs } = parseArgs({
  allowPositionals: true,
  options: { old: { type: 'string' }, rounds: { type: 'string', default: '1' } },
});
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds: expected a whole number ≥ 1, got ${flags.rounds}`);
const oldRuntime = flags.old === undefined ? undefined : join(resolve(flags.old), 'runtime');
if (oldRuntime && !existsSync(join(oldRuntime, 'stagecraft_runtime')))
  throw new Error(`--old: ${flags.old} has no runtime/stagecraft_runtime`);
const files = designs.length
  ? designs
  : ['1f1b-p4-m8.json', 'zb-h1-p4-m8.json', 'dualpipev-p4-m10.json'].map((f) => join(ROOT, 'examples', f));

/** The plain loop's µs per instruction, with the interpreter and runtime the CLI would use. */
function plainLoopUs(plan: Plan, scratch: string): number {
  const file = join(scratch, 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  const r = spawnSync(
    pythonInterpreter(),
    [join(ROOT, 'bench', 'runtime-plain-loop.py'), file, '16', 'float32', '5'],
    {
      encoding: 'utf8',
      // A script outside the package: it finds the checkout's runtime through PYTHONPATH.
      env: { ...process.env, PYTHONPATH: RUNTIME_DIR },
    },
  );
  if (r.status !== 0) throw new Error(`plain loop: ${r.stderr || r.error?.message}`);
  return Number(r.stdout.trim());
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Steps per run: the first (process groups connecting, caches) is left out, the median of the
 * rest taken, so one step a busy neighbour delayed does not decide the figure. */
const STEPS = 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP', 'OFFLOAD', 'RELOAD']);

/** One design on one runtime: the figures of one row. */
function measure(file: string, runtimeDir: string | undefined): string {
  const parsed = parseDesignText(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.errors[0]!.message}`);
  const compiled = compile(parsed.design);
  if (!compiled.ok) throw new Error(`${file}: ${compiled.errors[0]!.message}`);
  const plan = JSON.parse(JSON.stringify(compiled.plan)) as Plan;
  // Four ranks on however many cores there are: the overhead is what this measures.
  const outcome = launchRuntime(compiled.plan, {
    steps: STEPS,
    dtype: 'float32',
    backend: 'auto',
    trace: true,
    oversubscribe: true,
    runtimeDir,
  });
  if (outcome.kind !== 'done') throw new Error(`${file}: ${JSON.stringify(outcome)}`);
  const { stepMs, trace } = outcome.result;
  if (!trace) throw new Error(`${file}: the runtime returned no trace`);
  const wall = median(stepMs.slice(1));
  const measured = new Map<string, number>();
  const events = measuredTrace(compiled.plan, trace).traceEvents;
  const scratch = mkdtempSync(join(tmpdir(), 'runtime-overhead-'));
  const plain = plainLoopUs(plan, scratch);
  rmSync(scratch, { recursive: true, force: true });
  for (const e of events as {
    ph: string;
    pid: number;
    dur?: number;
    args?: { id?: string };
  }[])
    if (e.ph === 'X' && e.args?.id) measured.set(`${e.pid}|${e.args.id}`, (e.dur ?? 0) / 1000);
  let most = 0;
  for (const d of plan.devices) {
    let n = 0;
    for (const s of d.streams)
      for (const ins of s.instructions as Instruction[]) {
        n++;
        if (!COMPUTE.has(ins.op)) continue;
        const c = ins as { ms?: number; flops?: number; members?: { ms?: number }[] };
        c.ms = measured.get(`${d.device}|${ins.id}`) ?? 0;
        delete c.flops;
        for (const m of c.members ?? []) m.ms = 0;
      }
    most = Math.max(most, n);
  }
  plan.cluster = { kind: 'ideal', devices: plan.devices.length } as Plan['cluster'];
  const sim = simulate(plan, { keepTimeline: false });
  if (!sim.ok) throw new Error(sim.errors[0]!.message);
  const critical = sim.sim.makespanMs;
  const per = ((wall - critical) / most) * 1000;
  return `${parsed.design.name} | ${wall.toFixed(2)} | ${critical.toFixed(2)} | ${most} | ${per.toFixed(0)} | ${plain.toFixed(0)} | ${(per / plain).toFixed(2)}`;
}

console.log(
  'runtime | design | median wall step ms | critical path of measured compute ms | max instructions per device | overhead per instruction µs | plain loop µs per instruction | overhead / plain loop',
);
console.log(`load average (1, 5, 15 min) before: ${load()}`);
const runtimes: [string, string | undefined][] = [['this checkout', undefined]];
if (oldRuntime) runtimes.push([`old (${flags.old})`, oldRuntime]);
for (let round = 0; round < rounds; round++)
  for (const file of files)
    for (const [name, runtimeDir] of runtimes) {
      const row = measure(file, runtimeDir);
      console.log(`${name} | ${row} | load ${load()} at ${new Date().toISOString().slice(11, 19)} UTC`);
    }
console.log(`load average (1, 5, 15 min) after: ${load()}`);
