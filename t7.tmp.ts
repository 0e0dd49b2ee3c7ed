import { compile } from '@stagecraft/passes';
import { simulate } from './packages/sim/src/index.ts';
const [p, v, m] = [32, 2, 512];
const d: any = { format: 'stagecraft/design@1', name: 'x', model: { kind: 'synthetic', stages: p * v, costs: { F: 1 / v, BI: 1 / v, BW: 1 / v }, activationBytes: 2 ** 28 / v, paramBytes: 2 ** 30 / v, outputBytes: 2 ** 24 }, cluster: { kind: 'ideal', devices: p }, directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }] };
const c = compile(d, { keepSnapshots: false });
if (!c.ok) throw new Error('compile');
const plan = c.plan;
let n = 0, w = 0; const streams = new Set<string>();
for (const dv of plan.devices) for (const s of dv.streams) { streams.add(s.stream); for (const i of s.instructions) { n++; w += i.waits.length; } }
console.log('units', n, 'waits', w, 'streams', [...streams], 'sample', JSON.stringify(plan.devices[1]!.streams.map(s => s.instructions.slice(0, 3))).slice(0, 1500));
const json = JSON.parse(JSON.stringify(plan));
for (const [name, pl] of [['mem', plan], ['json', json]] as const) {
  const ts: number[] = [];
  for (let i = 0; i < 12; i++) { const t = performance.now(); const r = simulate(pl, { keepTimeline: false }); ts.push(performance.now() - t); if (!r.ok) throw new Error(r.errors[0]!.message); }
  ts.sort((a, b) => a - b); console.log(name, ts.slice(0, 4).map(x => x.toFixed(1)).join(' '));
}
