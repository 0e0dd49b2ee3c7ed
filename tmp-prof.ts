import { runDesign } from '@stagecraft/workflow';
import { simulate } from '@stagecraft/sim';
const p = 32, v = 2, m = 512;
const d: any = { format: 'stagecraft/design@1', name: 'x', model: { kind: 'synthetic', stages: p * v, costs: { F: 1 / v, BI: 1 / v, BW: 1 / v }, activationBytes: 2 ** 28 / v, paramBytes: 2 ** 30 / v, outputBytes: 2 ** 24 }, cluster: { kind: 'ideal', devices: p }, directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }] };
const run: any = runDesign(d, { keepSnapshots: false });
const mode = process.argv[2] ?? 'sim';
const times: number[] = [];
for (let i = 0; i < 40; i++) {
  const t0 = performance.now();
  if (mode === 'sim') simulate(run.compiled.plan, { keepTimeline: false }); else runDesign(d, { keepSnapshots: false });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(mode, 'min', times[0]!.toFixed(1), 'median', times[20]!.toFixed(1));
