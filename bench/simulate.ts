/**
 * Simulator speed: a hand-built 1F1B plan of ~200k instructions (8 ranks, SEND/RECV on their own
 * streams), simulated with and without the timeline. Run: npx tsx bench/simulate.ts
 */
import { simulate } from '../packages/sim/src/index.ts';
import { oneFOneB } from '../packages/sim/test/testPlans.ts';

const p = 8;
const m = 4500;
const plan = oneFOneB(p, m, { F: 1, B: 2, activationBytes: 1 << 20, bytes: 1 << 20 });
let n = 0;
for (const d of plan.devices) for (const s of d.streams) n += s.instructions.length;

function time(keepTimeline: boolean, runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = simulate(plan, { keepTimeline });
    out.push(performance.now() - t0);
    if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
    if (r.sim.makespanMs !== (m + p - 1) * 3) throw new Error(`unexpected makespan ${r.sim.makespanMs}`);
  }
  return out.sort((a, b) => a - b);
}

const fmt = (xs: number[]) =>
  `min ${xs[0]!.toFixed(1)} ms, median ${xs[xs.length >> 1]!.toFixed(1)} ms, max ${xs[xs.length - 1]!.toFixed(1)} ms`;
const cold = performance.now();
simulate(plan, { keepTimeline: false });
console.log(`plan: ${p} ranks × ${m} microbatches = ${n} instructions`);
console.log(`cold run (JIT warm-up): ${(performance.now() - cold).toFixed(1)} ms`);
console.log(`keepTimeline: false — ${fmt(time(false, 15))}`);
console.log(`keepTimeline: true  — ${fmt(time(true, 15))}`);
