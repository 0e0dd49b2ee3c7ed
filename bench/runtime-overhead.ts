/**
 * The runtime's overhead per instruction: each design runs on PyTorch (`stagecraft run --trace`),
 * then the plan is simulated again with every compute instruction costing exactly what it measured
 * and communication free (ideal cluster), which gives the critical path of measured compute. The
 * wall step minus that path, over the most instructions any device issues, is what the runtime
 * adds per instruction (loop, waits, Python, gloo's ~110 µs messages). Not a test: it asserts nothing.
 *
 *   npx tsx bench/runtime-overhead.ts [design …]    # default: 1F1B, ZB-H1 and DualPipeV on 4 ranks
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instruction, Plan } from '@stagecraft/ir';
import { parseDesignText } from '@stagecraft/ir';
import { launchRuntime, measuredTrace } from '@stagecraft/launch';
import { compile } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';

const ROOT = join(import.meta.dirname, '..');
const designs = process.argv.slice(2);
const files = designs.length
  ? designs
  : ['1f1b-p4-m8.json', 'zb-h1-p4-m8.json', 'dualpipev-p4-m10.json'].map((f) => join(ROOT, 'examples', f));

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP', 'OFFLOAD', 'RELOAD']);

console.log(
  'design | wall step ms | critical path of measured compute ms | max instructions per device | overhead per instruction µs',
);
for (const file of files) {
  const parsed = parseDesignText(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.errors[0]!.message}`);
  const compiled = compile(parsed.design);
  if (!compiled.ok) throw new Error(`${file}: ${compiled.errors[0]!.message}`);
  const plan = JSON.parse(JSON.stringify(compiled.plan)) as Plan;
  // Four ranks on however many cores there are: the overhead is what this measures.
  const outcome = launchRuntime(compiled.plan, {
    steps: 5,
    dtype: 'float32',
    backend: 'auto',
    trace: true,
    oversubscribe: true,
  });
  if (outcome.kind !== 'done') throw new Error(`${file}: ${JSON.stringify(outcome)}`);
  const { stepMs, trace } = outcome.result;
  if (!trace) throw new Error(`${file}: the runtime returned no trace`);
  const wall = stepMs[stepMs.length - 1]!;
  const measured = new Map<string, number>();
  const events = measuredTrace(compiled.plan, trace).traceEvents;
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
  console.log(
    `${parsed.design.name} | ${wall.toFixed(2)} | ${critical.toFixed(2)} | ${most} | ${per.toFixed(0)}`,
  );
}
