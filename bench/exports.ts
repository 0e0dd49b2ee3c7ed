/**
 * How long each export takes and how large the file is (`npx tsx bench/exports.ts`), on
 * interleaved 1F1B (v = 2) designs from a few hundred to about fifty thousand ops. Every export
 * compiles the design first; chrome-trace and torch-csv compute_comms also simulate it. Medians
 * of `--reps` runs after one warm-up. Not a test: it asserts nothing.
 *
 *   npx tsx bench/exports.ts
 *   npx tsx bench/exports.ts --reps 5
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import type { Design } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { type ExportFormat, exportDesign } from '@stagecraft/workflow';

const SIZES = [
  { p: 4, m: 8 },
  { p: 8, m: 32 },
  { p: 32, m: 128 },
];

const EXPORTS: { label: string; format: ExportFormat; torchFormat?: 'compute_only' | 'compute_comms' }[] = [
  { label: 'plan', format: 'plan' },
  { label: 'piper', format: 'piper' },
  { label: 'torch-csv', format: 'torch-csv' },
  { label: 'torch-csv comms', format: 'torch-csv', torchFormat: 'compute_comms' },
  { label: 'chrome-trace', format: 'chrome-trace' },
];

function design(p: number, m: number): Design {
  return {
    format: 'stagecraft/design@1',
    name: `interleaved-1f1b p=${p} v=2 m=${m}`,
    model: {
      kind: 'synthetic',
      stages: 2 * p,
      costs: { F: 0.5, BI: 0.5, BW: 0.5 },
      activationBytes: 2 ** 27,
      outputBytes: 2 ** 24,
    },
    cluster: { kind: 'ideal', devices: p },
    directives: [{ op: 'schedule', builder: 'interleaved-1f1b', microbatches: m, chunks: 2 }],
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' } } });
const reps = Math.max(1, Number(values.reps));

console.log(`exports of interleaved 1F1B (v=2), synthetic model, ideal cluster`);
console.log(
  `node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}; median of ${reps} after 1 warm-up\n`,
);
const header = ['design', 'ops', 'compile ms', ...EXPORTS.map((e) => `${e.label} ms`)];
console.log(header.map((h, i) => (i === 0 ? h.padEnd(20) : h.padStart(i === 1 ? 8 : 19))).join(''));
const sizes: string[] = [];
for (const { p, m } of SIZES) {
  const d = design(p, m);
  const c = compile(d, { keepSnapshots: false });
  if (!c.ok) throw new Error(c.errors.map((e) => e.message).join('\n'));
  const compileMs: number[] = [];
  for (let r = 0; r <= reps; r++) {
    const t = performance.now();
    compile(d, { keepSnapshots: false });
    if (r > 0) compileMs.push(performance.now() - t);
  }
  const cells: string[] = [];
  const bytes: string[] = [];
  for (const e of EXPORTS) {
    const ms: number[] = [];
    let size = 0;
    for (let r = 0; r <= reps; r++) {
      const t = performance.now();
      const out = exportDesign(d, e.format, e.torchFormat ? { torchFormat: e.torchFormat } : {});
      if (r > 0) ms.push(performance.now() - t);
      if (!out.ok) throw new Error(out.errors.map((x) => x.message).join('\n'));
      size = out.text.length;
    }
    cells.push(median(ms).toFixed(1).padStart(19));
    bytes.push(`${e.label} ${(size / 1024).toFixed(0)} KiB`);
  }
  console.log(
    `${`p=${p} m=${m}`.padEnd(20)}${c.ops.toLocaleString('en-US').padStart(8)}${median(compileMs).toFixed(1).padStart(19)}${cells.join('')}`,
  );
  sizes.push(`p=${p} m=${m}: ${bytes.join(', ')}`);
}
console.log(`\nfile sizes\n${sizes.join('\n')}`);
