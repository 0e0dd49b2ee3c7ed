/** Reading a design file and compiling it: the first steps every command shares. */
import { basename, extname } from 'node:path';
import { type Design, type Issue, parseDesignText } from '@stagecraft/ir';
import { designSizeIssue } from '@stagecraft/passes';
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

/**
 * The design, or undefined after naming the field that makes it too large for the op limit
 * (`--max-ops`): checked before the model is lowered or the cluster expanded, which for ten
 * million layers or a hundred million nodes would exhaust the heap before the compiler's own
 * limits are reached. The API refuses the same designs by the same check.
 */
export function sizedDesign(
  design: Design,
  file: string,
  options: GlobalOptions,
  io: Io,
): Design | undefined {
  const tooLarge = designSizeIssue(design, options.maxOps);
  if (!tooLarge) return design;
  reportIssues([tooLarge], file, io);
  return undefined;
}

/** The design in `file`, small enough to compile, or undefined after printing every problem with it. */
export function loadDesign(file: string, io: Io, options: GlobalOptions = {}): Design | undefined {
  const text = readText(file, io, options);
  if (text === undefined) return undefined;
  // A design without a name is called after its file, as the user sees it in a listing.
  const parsed = parseDesignText(text, { defaultName: basename(file, extname(file)) });
  if (!parsed.ok) {
    reportIssues(parsed.errors, file, io);
    return undefined;
  }
  return sizedDesign(parsed.design, file, options, io);
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
