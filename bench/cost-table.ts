/**
 * The cost table of the real-model examples: compile + simulate each design and print step time,
 * pipeline bubble, exposed communication (all kinds, and all-to-all alone), peak memory per
 * device, tokens/s and MFU, then the checks the README states (DualPipeV against 1F1B on the MoE
 * example, ZeRO-3 against ZeRO-1 on Llama-3-70B) and DeepSeek-V3's op count and time.
 * Run: npx tsx bench/cost-table.ts
 */
import { readFileSync } from 'node:fs';
import { parseDesignText } from '../packages/ir/src/index.ts';
import { compile } from '../packages/passes/src/index.ts';
import { simulate } from '../packages/sim/src/index.ts';

const EXAMPLES = [
  'piper-pp2-dp2-ep2',
  'qwen3-30b-a3b-pp4-ep8-1f1b',
  'qwen3-30b-a3b-pp4-ep8-interleaved-1f1b',
  'qwen3-30b-a3b-pp4-ep8-dualpipev',
  'llama3-70b-pp4-dp8-zero1',
  'llama3-70b-pp4-dp8-zero2',
  'llama3-70b-pp4-dp8-zero3',
  'deepseek-v3-pp16-ep128-dualpipe',
  'qwen3-1b-pp2-dp2-ep2-1f1b',
  'qwen3-1b-pp2-dp2-ep2-dualpipev',
  'qwen3-9b-pp2-dp2-ep2-interleaved-1f1b',
  'qwen3-9b-pp2-dp2-ep2-megatron-interleaved',
  'qwen3-9b-pp2-dp2-ep2-dualpipev',
  'qwen3-30b-a3b-dp16-ep16',
  'llama3.1-405b-pp16-tp8-1f1b',
  'llama3.1-405b-pp16-tp8-interleaved-1f1b',
];

interface Row {
  name: string;
  devices: number;
  stepMs: number;
  bubble: number;
  exposedMs: number;
  exposedA2aMs: number;
  peakBytes: number;
  staticBytes: number;
  oom: boolean;
  tokensPerSecond: number | undefined;
  mfu: number | undefined;
  programOps: number;
  deviceOps: number;
  compileMs: number;
  simulateMs: number;
  /** CPU time of compile + simulate (this process), best of the runs: robust to a busy machine. */
  cpuMs: number;
}

function run(name: string): Row {
  const parsed = parseDesignText(readFileSync(new URL(`../examples/${name}.json`, import.meta.url), 'utf8'));
  if (!parsed.ok)
    throw new Error(`${name}: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  // The DeepSeek-V3 design is timed as the best of 3 runs (after a warm-up), the others once.
  const runs = name.startsWith('deepseek') ? 4 : 1;
  let best = {
    t0: 0,
    t1: Number.POSITIVE_INFINITY,
    t2: Number.POSITIVE_INFINITY,
    cpu: Number.POSITIVE_INFINITY,
  };
  let c = compile(parsed.design, { keepSnapshots: false });
  let s = c.ok ? simulate(c.plan, { keepTimeline: false }) : undefined;
  for (let k = 0; k < runs; k++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    if (k > 0 || runs === 1) c = compile(parsed.design, { keepSnapshots: false });
    const t1 = performance.now();
    if (!c.ok) break;
    if (k > 0 || runs === 1) s = simulate(c.plan, { keepTimeline: false });
    const t2 = performance.now();
    const cu = process.cpuUsage(cpu0);
    const cpu = (cu.user + cu.system) / 1000;
    if (runs === 1 || (k > 0 && t2 - t0 < best.t2 - best.t0)) best = { t0, t1, t2, cpu };
  }
  const { t0, t1, t2 } = best;
  if (!c.ok) throw new Error(`${name}: ${c.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  if (!s?.ok) throw new Error(`${name}: ${s?.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  const sim = s.sim;
  const used = sim.devices.filter((d) => d.busyMs > 0);
  const worst = used.reduce((a, b) => (b.peakMemoryBytes > a.peakMemoryBytes ? b : a), used[0]!);
  let deviceOps = 0;
  let programOps = 0;
  for (const d of c.plan.devices) {
    let k = 0;
    for (const st of d.streams)
      for (const i of st.instructions) k += i.op === 'OVERLAP' ? i.members.length : 1;
    programOps += k;
    deviceOps += k * (1 + (d.replicas?.length ?? 0));
  }
  // Busy devices only: the Piper example leaves half of its node idle.
  const idle = used.reduce((a, d) => a + d.idleMs, 0);
  return {
    name,
    devices: used.length,
    stepMs: sim.makespanMs,
    bubble: idle / (used.length * sim.makespanMs),
    exposedMs: used.reduce((a, d) => a + (d.exposedCommMs ?? 0), 0) / used.length,
    exposedA2aMs: (sim.exposedCommByKindMs?.ALL_TO_ALL ?? 0) / used.length,
    peakBytes: worst.peakMemoryBytes,
    staticBytes: worst.staticBytes ?? 0,
    oom: used.some((d) => d.oom === true),
    tokensPerSecond: sim.tokensPerSecond,
    mfu: sim.mfu,
    programOps,
    deviceOps,
    compileMs: t1 - t0,
    simulateMs: t2 - t1,
    cpuMs: best.cpu,
  };
}

const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
const ms = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);
const rows = EXAMPLES.map(run);
const header = [
  'example',
  'GPUs',
  'step',
  'bubble',
  'exposed comm',
  'of it all-to-all',
  'peak mem / GPU',
  'tokens/s',
  'MFU',
];
const lines = rows.map((r) => [
  r.name,
  String(r.devices),
  ms(r.stepMs),
  `${(100 * r.bubble).toFixed(1)}%`,
  ms(r.exposedMs),
  ms(r.exposedA2aMs),
  `${gib(r.peakBytes)}${r.oom ? ' OOM' : ''}`,
  r.tokensPerSecond === undefined ? '—' : Math.round(r.tokensPerSecond).toLocaleString('en-US'),
  r.mfu === undefined ? '—' : `${(100 * r.mfu).toFixed(1)}%`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(row(header));
console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
for (const l of lines) console.log(row(l));
console.log(
  '\nbubble: idle compute / (GPUs × step); exposed comm and all-to-all: per GPU, time with communication in flight and no compute running; peak memory: the fullest GPU.',
);

const byName = new Map(rows.map((r) => [r.name, r]));
const one = byName.get('qwen3-30b-a3b-pp4-ep8-1f1b')!;
const dpv = byName.get('qwen3-30b-a3b-pp4-ep8-dualpipev')!;
console.log(
  `\nQwen3-30B-A3B: DualPipeV exposes ${ms(dpv.exposedA2aMs)} of all-to-all per GPU, 1F1B ${ms(one.exposedA2aMs)}; step ${ms(dpv.stepMs)} vs ${ms(one.stepMs)} (${((one.stepMs / dpv.stepMs - 1) * 100).toFixed(1)}% more throughput)`,
);
const z1 = byName.get('llama3-70b-pp4-dp8-zero1')!;
const z3 = byName.get('llama3-70b-pp4-dp8-zero3')!;
const n = 8;
// Expected: ZeRO-3 also shards weights and gradients: (W + G)(1 − 1/n) = 2W(n−1)/n less resident,
// W being the fullest stage's 16-bit weights; ZeRO-1's resident state is W + G + 6W/n.
const w = z1.staticBytes / (2 + 6 / n);
console.log(
  `Llama-3-70B: ZeRO-3 peak ${gib(z3.peakBytes)} vs ZeRO-1 ${gib(z1.peakBytes)}: ${gib(z1.peakBytes - z3.peakBytes)} less; resident state ${gib(z3.staticBytes)} vs ${gib(z1.staticBytes)}, expected 2W(n−1)/n = ${gib((2 * w * (n - 1)) / n)} less with W = ${gib(w)}, n = ${n}; the rest is ZeRO-3's transiently gathered parameters`,
);
const ds = byName.get('deepseek-v3-pp16-ep128-dualpipe')!;
console.log(
  `DeepSeek-V3 (2,048 GPUs): ${ds.programOps.toLocaleString('en-US')} instructions in its 16 group programs (${ds.deviceOps.toLocaleString('en-US')} per-device instructions), compiled in ${ds.compileMs.toFixed(0)} ms and simulated in ${ds.simulateMs.toFixed(0)} ms (best of 3; ${ds.cpuMs.toFixed(0)} ms of CPU)`,
);
