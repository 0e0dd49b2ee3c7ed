/**
 * Reading the measurement files a command is given (traces or a stage table) and the options that
 * name them, for `calibrate` and `compare --measured` alike.
 */
import { type MeasuredCosts, type MeasuredStep, mergeTraces, readMeasurement } from '@stagecraft/measure';
import { errorLine } from './format.ts';
import type { InputOptions } from './inputFile.ts';
import type { Io } from './io.ts';
import { readText } from './load.ts';

export interface MeasuredFiles {
  files: string[];
  /** The rank of a single per-rank trace that records none. */
  rank?: number;
}

export type StageTable = { file: string; costs: MeasuredCosts; form: 'csv' | 'json' };

/** `--rank`, checked against the files it would apply to. */
export function rankOption(raw: unknown, files: readonly string[]): { rank?: number } | { error: string } {
  if (typeof raw !== 'string') return {};
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    return { error: `--rank: expected an integer ≥ 0, got ${JSON.stringify(raw)}` };
  if (files.length > 1) return { error: '--rank: names the rank of one trace file; give one file' };
  return { rank: Number(raw) };
}

/**
 * The measured step of trace files, or the one stage table given; undefined after printing every
 * problem, each line naming the file and then the place in it.
 */
export function loadMeasured(
  m: MeasuredFiles,
  io: Io,
  options: InputOptions,
): { step: MeasuredStep } | { table: StageTable } | undefined {
  const reads: { file: string; step: MeasuredStep }[] = [];
  const tables: StageTable[] = [];
  let failed = false;
  for (const file of m.files) {
    const text = readText(file, io, options);
    if (text === undefined) {
      failed = true;
      continue;
    }
    const r = readMeasurement(text, file, m.rank !== undefined ? { rank: m.rank } : {});
    if (!r.ok) {
      for (const e of r.errors)
        io.err(errorLine({ path: e.path ? `${file}: ${e.path}` : file, message: e.message }));
      failed = true;
      continue;
    }
    if (r.kind === 'table') tables.push({ file, costs: r.costs, form: r.form });
    else reads.push({ file, step: r.step });
  }
  if (failed) return undefined;
  if (tables.length > 0) {
    if (m.files.length > 1) {
      io.err(
        errorLine({
          path: tables[0]!.file,
          message: 'a table of stage costs calibrates alone: give it without traces',
        }),
      );
      return undefined;
    }
    return { table: tables[0]! };
  }
  const merged = mergeTraces(reads);
  if (!merged.ok) {
    for (const e of merged.errors) io.err(errorLine({ path: e.path, message: e.message }));
    return undefined;
  }
  return { step: merged.step };
}
