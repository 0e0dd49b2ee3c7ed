/**
 * Compile and simulate time of named examples (`npx tsx bench/example-times.ts <name>…`): the
 * large real-model designs whose speed a change must not cost (DeepSeek-V3 at 2,048 GPUs, the
 * Llama 3.1 405B mesh at 8,192). Each runs `--warmup` times, then `--reps` times, in this process
 * (the JIT warm, as in the API's and the web app's workers), through the workflow the CLI and the
 * API take, without snapshots or the timeline; the table shows medians, the CPU time of compile +
 * simulate too (less sensitive than wall time to other jobs on a shared machine). Not a test.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatIssue, parseDesignText } from '@stagecraft/ir';
import { runDesign, simulateRun } from '@stagecraft/workflow';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { reps: { type: 'string', default: '9' }, warmup: { type: 'string', default: '3' } },
});
const reps = Number(values.reps);
const warmup = Number(values.warmup);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(
  `example                                      ops   devices  compile ms  simulate ms  cpu ms  (median of ${reps})`,
);
for (const name of positionals) {
  const text = readFileSync(new URL(`../examples/${name}.json`, import.meta.url), 'utf8');
  const parsed = parseDesignText(text);
  if (!parsed.ok) throw new Error(parsed.errors.map(formatIssue).join('\n'));
  const compileMs: number[] = [];
  const simulateMs: number[] = [];
  const cpuMs: number[] = [];
  let ops = 0;
  let devices = 0;
  for (let k = 0; k < warmup + reps; k++) {
    const cpu0 = process.cpuUsage();
    const run = runDesign(parsed.design, { keepSnapshots: false });
    if (!run.ok) throw new Error(run.errors.map(formatIssue).join('\n'));
    const sim = simulateRun(run, false);
    if (!sim.result.ok) throw new Error(sim.result.errors.map(formatIssue).join('\n'));
    const cpu = process.cpuUsage(cpu0);
    ops = sim.result.sim.ops;
    devices = sim.result.sim.devices.length;
    if (k < warmup) continue;
    compileMs.push(run.compileMs);
    simulateMs.push(sim.ms);
    cpuMs.push((cpu.user + cpu.system) / 1000);
  }
  console.log(
    `${name.padEnd(42)} ${ops.toLocaleString('en-US').padStart(7)} ${String(devices).padStart(8)} ${median(compileMs).toFixed(0).padStart(11)} ${median(simulateMs).toFixed(0).padStart(12)} ${median(cpuMs).toFixed(0).padStart(7)}`,
  );
}
