/** `stagecraft compare <design> <design> … [--json] [--steps n]`: schedules side by side. */
import { compareMeasured } from '@stagecraft/measure';
import { MAX_STEPS } from '@stagecraft/sim';
import { type CompareRow, compareDesigns } from '@stagecraft/workflow';
import { errorLine, formatBytes, formatCount, formatMs, formatPercent, table } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { loadDesign } from '../load.ts';
import { loadMeasured, type MeasuredFiles, rankOption } from '../measuredFiles.ts';
import { divergenceTable, replayTable, stepsText, unmatchedLine } from '../replayText.ts';
import type { OptionValues } from './output.ts';

export interface CompareCommand {
  kind: 'compare';
  designs: string[];
  json: boolean;
  /** Measured traces of the one design: predicted against measured instead of designs side by side. */
  measured?: MeasuredFiles;
  steps?: number;
}

export const COMPARE_OPTIONS = ['json', 'steps', 'measured', 'rank'] as const;

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

With --measured, one design against a measured step of its plan (traces as "stagecraft calibrate"
reads them): the predicted and measured step, the per-op error and the instructions whose start
or duration diverge most, nothing fitted.

Options (measured):
  --measured <file> …   the measured trace files (also given after the design)
  --rank <n>            the rank of a single per-rank trace that does not record it
  --json                print {"match": {matched, unmatched, missing}, "replay": {measuredStepMs,
                        predictedStepMs, stepErrorPct, opErrorPct, divergences}, "steps"}

Examples:
  stagecraft compare examples/1f1b-p4-m8.json examples/zb-h1-p4-m8.json examples/zbv-p4-m8.json
  stagecraft compare design.json --measured rank0.json rank1.json`;

export function parseCompareArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: CompareCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'compare: missing the design files' };
  const given = values.measured;
  if (Array.isArray(given)) {
    if (values.steps !== undefined) return { ok: false, error: '--steps: not with --measured' };
    const files = [...given, ...rest.slice(1)];
    const rank = rankOption(values.rank, files);
    if ('error' in rank) return { ok: false, error: rank.error };
    const measured: MeasuredFiles = { files, ...rank };
    return {
      ok: true,
      command: { kind: 'compare', designs: [rest[0]!], json: values.json === true, measured },
    };
  }
  if (values.rank !== undefined) return { ok: false, error: '--rank: goes with --measured' };
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
  if (cmd.measured) return compareWithMeasured(cmd.designs[0]!, cmd.measured, cmd, io);
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

function compareWithMeasured(
  file: string,
  files: MeasuredFiles,
  cmd: CompareCommand & InputOptions,
  io: Io,
): number {
  const design = loadDesign(file, io, cmd);
  if (!design) return 1;
  const measured = loadMeasured(files, io, cmd);
  if (!measured) return 1;
  if ('table' in measured) {
    io.err(
      errorLine({
        path: measured.table.file,
        message: 'a table of stage costs is not a measured step: compare a trace',
      }),
    );
    return 1;
  }
  const r = compareMeasured(design, measured.step);
  if (!r.ok) {
    for (const e of r.errors) io.err(errorLine(e, file));
    return 1;
  }
  if (cmd.json) {
    const { matched, unmatched, missing } = r.match;
    io.out(
      JSON.stringify({
        match: { matched: matched.length, unmatched, missing: missing.length },
        replay: r.replay,
        steps: r.steps,
      }),
    );
    return 0;
  }
  const lines = [
    `${r.match.matched.length} measured spans matched (steps ${stepsText(r.steps)} used)`,
    '',
    replayTable([[design.name ?? file, r.replay]]),
  ];
  const unmatched = unmatchedLine(r.match);
  if (unmatched) lines.push('', unmatched);
  const divergent = divergenceTable(r.replay, 'most divergent (start and duration, predicted → measured):');
  if (divergent.length > 0) lines.push('', ...divergent);
  io.out(lines.join('\n'));
  return 0;
}
