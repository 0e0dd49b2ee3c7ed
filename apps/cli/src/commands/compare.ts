/** `stagecraft compare <design> <design> … [--json]`: schedules side by side. */
import { type CompareRow, compareDesigns } from '@stagecraft/workflow';
import { errorLine, formatBytes, formatCount, formatMs, formatPercent, table } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { loadDesign } from '../load.ts';
import type { OptionValues } from './output.ts';

export interface CompareCommand {
  kind: 'compare';
  designs: string[];
  json: boolean;
}

export const COMPARE_OPTIONS = ['json'] as const;

export const COMPARE_USAGE = `Usage: stagecraft compare <design> <design> … [--json]

Compiles and simulates every design and prints them side by side: step time, bubble of the total
(Σ idle / (devices × step)) and of the ideal time (Σ idle / Σ busy, as Megatron reports it),
exposed communication per GPU in use, peak memory (the highest device, then every device), tokens/s when the
model knows its sequence length.

Options:
  --json   print one JSON object: {"designs": [{file, name, stepMs, bubbleRatio, bubbleOverIdeal,
           exposedCommMs (Σ over devices), exposedCommPerDeviceMs, peakMemoryBytes: [{device, bytes}],
           maxPeakMemoryBytes, tokensPerSecond?, ops, devices}]}

Example:
  stagecraft compare examples/1f1b-p4-m8.json examples/zb-h1-p4-m8.json examples/zbv-p4-m8.json`;

export function parseCompareArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: CompareCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'compare: missing the design files' };
  return { ok: true, command: { kind: 'compare', designs: [...rest], json: values.json === true } };
}

export function compareCommand(cmd: CompareCommand & InputOptions, io: Io): number {
  const loaded = cmd.designs.map((file) => ({ file, design: loadDesign(file, io, cmd) }));
  if (loaded.some((l) => !l.design)) return 1;
  const rows = compareDesigns(loaded.map((l) => l.design!));
  let failed = false;
  rows.forEach((r, i) => {
    if (r.ok) return;
    failed = true;
    for (const e of r.errors) io.err(errorLine(e, loaded[i]!.file));
  });
  if (failed) return 1;
  const ok = rows as Extract<CompareRow, { ok: true }>[];
  if (cmd.json) {
    io.out(JSON.stringify({ designs: ok.map(({ ok: _ok, ...r }, i) => ({ file: cmd.designs[i], ...r })) }));
    return 0;
  }
  io.out(compareTable(ok));
  return 0;
}

export function compareTable(rows: readonly Extract<CompareRow, { ok: true }>[]): string {
  const main = table(
    [
      'design',
      'step',
      'bubble (of total)',
      'bubble (of ideal)',
      'exposed comm / GPU',
      'peak memory',
      'tokens/s',
    ],
    rows.map((r) => [
      r.name,
      formatMs(r.stepMs),
      formatPercent(r.bubbleRatio),
      formatPercent(r.bubbleOverIdeal),
      formatMs(r.exposedCommPerDeviceMs),
      formatBytes(r.maxPeakMemoryBytes),
      r.tokensPerSecond === undefined ? '-' : formatCount(Math.round(r.tokensPerSecond)),
    ]),
  );
  const devices = Math.max(...rows.map((r) => r.peakMemoryBytes.length));
  const perDevice = table(
    ['peak memory per device', ...Array.from({ length: devices }, (_, d) => `dev ${d}`)],
    rows.map((r) => [
      r.name,
      ...Array.from({ length: devices }, (_, d) => {
        const p = r.peakMemoryBytes.find((x) => x.device === d);
        return p ? formatBytes(p.bytes) : '-';
      }),
    ]),
  );
  return `${main}\n\n${perDevice}`;
}
