import { compile } from '@stagecraft/passes';
import { simulate } from './packages/sim/src/index.ts';
import { oneFOneB } from './packages/sim/src/testPlans.ts';
const [p, v, m] = [32, 2, 512];
const d: any = { format: 'stagecraft/design@1', name: 'x', model: { kind: 'synthetic', stages: p * v, costs: { F: 1 / v, BI: 1 / v, BW: 1 / v }, activationBytes: 2 ** 28 / v, paramBytes: 2 ** 30 / v, outputBytes: 2 ** 24 }, cluster: { kind: 'ideal', devices: p }, directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }] };
const c = compile(d, { keepSnapshots: false });
if (!c.ok) throw new Error('compile');
const plans = { compiled: c.plan, fixture: oneFOneB(8, 4500, { F: 1, B: 2, activationBytes: 1, bytes: 1 }) };
for (const [name, pl] of Object.entries(plans)) for (const keep of [false, true]) {
  const rows: number[][] = [];
  for (let i = 0; i < 15; i++) { const t = performance.now(); const r = simulate(pl, { keepTimeline: keep }); rows.push([performance.now() - t, ...(globalThis as any).__t]); if (!r.ok) throw 1; }
  rows.sort((a, b) => a[0]! - b[0]!);
  console.log(name, keep, rows.slice(0, 3).map(r => r.map(x => x.toFixed(1)).join('/')).join('  '));
}
