/**
 * `stagecraft calibrate <design> --trace <files…> [--rank n] [-o calibrated.json] [--json]`: fit
 * the design's costs to a measured step and say how well the prediction then replays it.
 */
import { basename } from 'node:path';
import {
  type Calibration,
  calibrate,
  calibrateFromTable,
  csvPlace,
  type TableCalibration,
} from '@stagecraft/measure';
import { errorLine, formatMs } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { loadDesign } from '../load.ts';
import { loadMeasured, rankOption, type StageTable } from '../measuredFiles.ts';
import { divergenceTable, replayTable, stepsText, unmatchedLine } from '../replayText.ts';
import { type OptionValues, writeOutput } from './output.ts';

export interface CalibrateCommand {
  kind: 'calibrate';
  design: string;
  traces: string[];
  rank?: number;
  output?: string;
  json: boolean;
}

export const CALIBRATE_OPTIONS = ['trace', 'rank', 'output', 'json'] as const;

export const CALIBRATE_USAGE = `Usage: stagecraft calibrate <design> --trace <file> [<file> …] [--rank <n>] [-o calibrated.json] [--json]

Reads measured traces of the design's plan (or a table of stage costs), fits its costs to them and
replays the calibrated design against the measurement. Each span of a trace is an instruction of the plan, named by its id
(as "stagecraft compile" writes them): the runtime's own traces are, and in your own training loop
wrap each op in torch.profiler.record_function("<instruction id>"). Traces read:
  Stagecraft   the runtime's measured trace (or an exported one): every device in one file
  Kineto       torch >= 2's profiler JSON, one file per rank (the rank from distributedInfo)
  legacy       torch 1.13's profiler export, one file per rank, the rank in the file's name
               (rank3.json, trace_rank3.json) or given with --rank
  stage table  measured milliseconds per stage, alone: a CSV "stage,F,BI,BW" (also B, FandB, UPD
               columns), or JSON {"format": "stagecraft/measured-costs@1", "stages": [{"stage",
               "F", "BI", "BW"}], "p2p": {"bandwidthGBps", "latencyUs"}}
Fitted: each block's F, BI and BW (or fused B) and optimizer time (medians; the first step of a
multi-step trace is left out as warm-up), the overlap factor of F&B pairs, the runtime's dispatch
time per instruction (the cluster's dispatchMs), and, when the devices' clocks agree, the
point-to-point link's latency and bandwidth.

Options:
  --trace <file> …      the measured trace files (also given after the design)
  --rank <n>            the rank of a single per-rank trace that does not record it
  -o, --output <file>   write the calibrated design (a synthetic model with the measured times;
                        its description says where they came from)
  --json                print one JSON object: fits, the replay before and after, unmatched spans

Example:
  stagecraft calibrate design.json --trace rank0.json rank1.json -o calibrated.json`;

export function parseCalibrateArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: CalibrateCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'calibrate: missing the design file' };
  const given = values.trace;
  const traces = [...(Array.isArray(given) ? given : []), ...rest.slice(1)];
  if (traces.length === 0)
    return { ok: false, error: 'calibrate: missing the trace files (--trace <file> …)' };
  const command: CalibrateCommand = {
    kind: 'calibrate',
    design: rest[0]!,
    traces,
    json: values.json === true,
  };
  const rank = rankOption(values.rank, traces);
  if ('error' in rank) return { ok: false, error: rank.error };
  if (rank.rank !== undefined) command.rank = rank.rank;
  const output = values.output;
  if (output === '') return { ok: false, error: '--output: needs a file name' };
  if (typeof output === 'string') command.output = output;
  return { ok: true, command };
}

export function calibrateCommand(cmd: CalibrateCommand & InputOptions, io: Io): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  const measured = loadMeasured(
    { files: cmd.traces, ...(cmd.rank !== undefined ? { rank: cmd.rank } : {}) },
    io,
    cmd,
  );
  if (!measured) return 1;
  if ('table' in measured) return fromTable(cmd, design, measured.table, io);
  const result = calibrate(design, measured.step, {
    files: cmd.traces.map((f) => basename(f)),
    sources: measured.step.sources,
  });
  if (!result.ok) {
    for (const e of result.errors) io.err(errorLine(e, cmd.design));
    return 1;
  }
  if (cmd.output !== undefined && !writeOutput(`${JSON.stringify(result.design, null, 2)}\n`, cmd.output, io))
    return 1;
  io.out(cmd.json ? JSON.stringify(calibrationJson(result)) : calibrationSummary(result, cmd.output));
  return 0;
}

function fromTable(
  cmd: CalibrateCommand,
  design: Parameters<typeof calibrateFromTable>[0],
  table: StageTable,
  io: Io,
): number {
  const result = calibrateFromTable(design, table.costs, {
    files: [basename(table.file)],
    sources: ['stage-table'],
  });
  if (!result.ok) {
    for (const e of result.errors) {
      const where = table.form === 'csv' ? csvPlace(e.path) : e.path;
      io.err(errorLine({ path: where ? `${table.file}: ${where}` : table.file, message: e.message }));
    }
    return 1;
  }
  if (cmd.output !== undefined && !writeOutput(`${JSON.stringify(result.design, null, 2)}\n`, cmd.output, io))
    return 1;
  io.out(cmd.json ? JSON.stringify(tableJson(result)) : tableSummary(result, cmd.output));
  return 0;
}

function tableJson(c: TableCalibration) {
  return {
    predictedStepMs: c.predictedStepMs,
    fits: { ...c.fits, blocks: c.fits.blocks.filter((b) => b.F || b.BI || b.BW || b.B || b.UPD) },
    unmeasured: c.unmeasured,
    notes: c.notes,
  };
}

function tableSummary(c: TableCalibration, output: string | undefined): string {
  const fitted = c.fits.blocks.filter((b) => b.F || b.BI || b.BW || b.B).length;
  const lines = [
    `${fitted} of ${c.fits.blocks.length} blocks take the table's stage costs`,
    `predicted step: ${formatMs(c.predictedStepMs.before)} as designed, ${formatMs(c.predictedStepMs.after)} calibrated`,
  ];
  for (const n of c.notes) lines.push(`note: ${n}`);
  if (c.unmeasured.length > 0)
    lines.push(`blocks not in the table (their predicted times kept): ${c.unmeasured.join(', ')}`);
  lines.push(
    output ? `wrote the calibrated design to ${output}` : 'write the calibrated design with -o <file>',
  );
  return lines.join('\n');
}

function calibrationJson(c: Calibration) {
  return {
    before: c.before,
    after: c.after,
    fits: { ...c.fits, blocks: c.fits.blocks.filter((b) => b.F || b.BI || b.BW || b.B || b.UPD) },
    matched: c.match.matched.length,
    unmatched: c.match.unmatched,
    missing: c.match.missing.length,
    unmeasured: c.unmeasured,
    notes: c.notes,
  };
}

export function calibrationSummary(c: Calibration, output: string | undefined): string {
  const lines: string[] = [];
  const fitted = c.fits.blocks.filter((b) => b.F || b.BI || b.BW || b.B).length;
  lines.push(
    `${c.match.matched.length} measured spans matched (steps ${stepsText(c.fits.steps)} used); ${fitted} of ${c.fits.blocks.length} blocks measured`,
  );
  lines.push('');
  lines.push(
    replayTable([
      ['as designed', c.before],
      ['calibrated', c.after],
    ]),
  );
  const fits: string[] = [];
  if (c.fits.overlapFactor) fits.push(`F&B overlap factor ${c.fits.overlapFactor.ms.toFixed(3)}`);
  const p2p = c.fits.p2p;
  if (p2p)
    fits.push(
      p2p.separable
        ? `point-to-point ${p2p.latencyUs.toFixed(1)} µs + ${p2p.bandwidthGBps.toFixed(2)} GB/s (${p2p.samples} transfers)`
        : `point-to-point ${p2p.latencyUs.toFixed(1)} µs per transfer (${p2p.samples} transfers of one size)`,
    );
  const dispatch = c.fits.dispatch;
  if (dispatch)
    fits.push(`dispatch ${(dispatch.ms * 1e3).toFixed(0)} µs per instruction (${dispatch.samples} gaps)`);
  for (const [op, fit] of Object.entries(c.fits.collectives ?? {}))
    fits.push(
      fit.separable
        ? `${op} bus bandwidth ${fit.bandwidthGBps.toFixed(2)} GB/s + ${fit.latencyUs.toFixed(1)} µs (${fit.samples} collectives)`
        : `${op} ${fit.latencyUs.toFixed(1)} µs each (${fit.samples} collectives of one size)`,
    );
  if (fits.length > 0) lines.push('', `fitted: ${fits.join('; ')}`);
  for (const n of c.notes) lines.push(`note: ${n}`);
  const unmatched = unmatchedLine(c.match);
  if (unmatched) lines.push('', unmatched);
  if (c.unmeasured.length > 0)
    lines.push(`blocks not measured (their predicted times kept): ${c.unmeasured.join(', ')}`);
  const divergent = divergenceTable(
    c.after,
    'most divergent after calibration (start and duration, predicted → measured):',
  );
  if (divergent.length > 0) lines.push('', ...divergent);
  lines.push(
    '',
    output ? `wrote the calibrated design to ${output}` : 'write the calibrated design with -o <file>',
  );
  return lines.join('\n');
}
