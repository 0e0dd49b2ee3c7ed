/** `stagecraft compare <design> <design> … [--json] [--steps n]`: schedules side by side. */
import { MAX_STEPS } from '@stagecraft/sim';
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
  steps?: number;
}

export const COMPARE_OPTIONS = ['json', 'steps'] as const;

export const COMPARE_USAGE = `Usage: stagecraft compare <design> <design> … [--json] [--steps <n>]

Compiles and simulates every design and prints them side by side: step time, bubble of the total
(Σ idle / (devices × step)) and of the ideal time (Σ idle / Σ busy, as Megatron reports it),
exposed communication per GPU in use, peak memory (the highest device, then every device), tokens/s when the
model knows its sequence length.

Options:
  --json   print one JSON object: {"designs": [{file, name, stepMs, bubbleRatio, bubbleOverIdeal,
           exposedCommMs (Σ over devices), exposedCommPerDeviceMs, peakMemoryBytes: [{device, bytes}],
           maxPeakMemoryBytes, tokensPerSecond?, steadyStepMs? (with --steps), ops, devices}]}
  --steps <n>  also simulate n steps in a row (2 to 64): the steady step time of each design

Example:
  stagecraft compare examples/1f1b-p4-m8.json examples/zb-h1-p4-m8.json examples/zbv-p4-m8.json`;

export function parseCompareArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: CompareCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'compare: missing the design files' };
  const command: CompareCommand = { kind: 'compare', designs: [...rest], json: values.json === true };
  if (values.steps !== undefined) {
    const raw = String(values.steps);
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 2 || n > MAX_STEPS)
      return { ok: false, error: `--steps: must be from 2 to ${MAX_STEPS}, got ${JSON.stringify(raw)}` };
    command.steps = n;
  }
  return { ok: true, command };
}

export function compareCommand(cmd: CompareCommand & InputOptions, io: Io): number {
  const loaded = cmd.designs.map((file) => ({ file, design: loadDesign(file, io, cmd) }));
  if (loaded.some((l) => !l.design)) return 1;
  const rows = compareDesigns(
    loaded.map((l) => l.design!),
    cmd.steps !== undefined ? { steps: cmd.steps } : {},
  );
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
  const steady = rows.some((r) => r.steadyStepMs !== undefined);
  const main = table(
    [
      'design',
      'step',
      ...(steady ? ['steady step'] : []),
      'bubble (of total)',
      'bubble (of ideal)',
      'exposed comm / GPU',
      'peak memory',
      'tokens/s',
    ],
    rows.map((r) => [
      r.name,
      formatMs(r.stepMs),
      ...(steady ? [r.steadyStepMs === undefined ? '-' : formatMs(r.steadyStepMs)] : []),
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
