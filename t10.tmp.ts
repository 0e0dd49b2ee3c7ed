import { compile } from '@stagecraft/passes';
import { run } from './packages/sim/src/engine.ts';
import { flatten } from './packages/sim/src/flat.ts';
const [p, v, m] = [32, 2, 512];
const d: any = { format: 'stagecraft/design@1', name: 'x', model: { kind: 'synthetic', stages: p * v, costs: { F: 1 / v, BI: 1 / v, BW: 1 / v }, activationBytes: 2 ** 28 / v, paramBytes: 2 ** 30 / v, outputBytes: 2 ** 24 }, cluster: { kind: 'ideal', devices: p }, directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }] };
const c = compile(d, { keepSnapshots: false });
if (!c.ok) throw new Error('compile');
const f = flatten(c.plan, { kind: 'ideal', p2pLatencyMs: 0 });
if (!f.ok) throw 1;
const ts: number[] = []; const fs: number[] = [];
for (let i = 0; i < 20; i++) { let t = performance.now(); run(f.flat, false); ts.push(performance.now() - t); t = performance.now(); flatten(c.plan, { kind: 'ideal', p2pLatencyMs: 0 }); fs.push(performance.now() - t); }
ts.sort((a, b) => a - b); fs.sort((a, b) => a - b);
console.log('run', ts.slice(0, 5).map(x => x.toFixed(1)).join(' '), ' flatten', fs.slice(0, 5).map(x => x.toFixed(1)).join(' '));
