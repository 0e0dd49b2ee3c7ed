/** Reading a design file and compiling it: the first steps every command shares. */
import { basename, extname } from 'node:path';
import { type Design, type Issue, parseDesignText } from '@stagecraft/ir';
import { type DesignRun, runDesign } from '@stagecraft/workflow';
import { errorLine } from './format.ts';
import type { GlobalOptions } from './inputFile.ts';
import { type InputOptions, readInputFile } from './inputFile.ts';
import type { Io } from './io.ts';

/** Reads a file's text, or reports why it cannot be read as `error: <file>: <reason>`. */
export function readText(file: string, io: Io, options: InputOptions = {}): string | undefined {
  const r = readInputFile(file, options.maxInputBytes);
  if (r.ok) return r.text;
  io.err(errorLine({ path: file, message: r.reason }));
  return undefined;
}

export function reportIssues(issues: readonly Issue[], file: string, io: Io): void {
  for (const i of issues) io.err(errorLine(i, file));
}

/** The design in `file`, or undefined after printing every problem with it. */
export function loadDesign(file: string, io: Io, options: InputOptions = {}): Design | undefined {
  const text = readText(file, io, options);
  if (text === undefined) return undefined;
  // A design without a name is called after its file, as the user sees it in a listing.
  const parsed = parseDesignText(text, { defaultName: basename(file, extname(file)) });
  if (!parsed.ok) {
    reportIssues(parsed.errors, file, io);
    return undefined;
  }
  return parsed.design;
}

/** Compiles without per-pass snapshots (the CLI never shows them); undefined after printing the problems. */
export function compileDesign(
  design: Design,
  file: string,
  options: GlobalOptions,
  io: Io,
): DesignRun | undefined {
  const run = runDesign(design, {
    keepSnapshots: false,
    ...(options.maxOps !== undefined ? { maxOps: options.maxOps } : {}),
  });
  if (!run.ok) {
    reportIssues(run.errors, file, io);
    return undefined;
  }
  return run;
}
