import { compile } from '@stagecraft/passes';
const [p, v, m] = [32, 2, 512];
const d: any = { format: 'stagecraft/design@1', name: 'x', model: { kind: 'synthetic', stages: p * v, costs: { F: 1 / v, BI: 1 / v, BW: 1 / v }, activationBytes: 2 ** 28 / v, paramBytes: 2 ** 30 / v, outputBytes: 2 ** 24 }, cluster: { kind: 'ideal', devices: p }, directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: v }] };
const c = compile(d, { keepSnapshots: false });
if (!c.ok) throw new Error('compile');
const dev = c.plan.devices[5]!;
const pos = new Map<string, [number, number]>();
dev.streams.forEach((s, si) => s.instructions.forEach((x, k) => pos.set(x.id, [si, k])));
for (const [si, s] of dev.streams.entries()) {
  const cur = dev.streams.map(() => 0); const jumps: number[] = [];
  for (const x of s.instructions) for (const w of x.waits) { const [ts, k] = pos.get(w)!; jumps.push(k - cur[ts]!); cur[ts] = k; }
  const hist = new Map<string, number>(); for (const j of jumps) { const b = j < -2 ? '<-2' : j > 8 ? '>8' : String(j); hist.set(b, (hist.get(b) ?? 0) + 1); }
  console.log(s.stream, s.instructions.length, [...hist].sort());
}
console.log(dev.streams.map(s => s.stream + ': ' + s.instructions.slice(0, 12).map(x => x.id).join(' ')).join('\n'));
