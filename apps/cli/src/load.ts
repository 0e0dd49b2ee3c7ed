/** Reading a design file and compiling it: the first steps every command shares. */
import { readFileSync } from 'node:fs';
import { type Design, type Issue, parseDesignText } from '@stagecraft/ir';
import { type DesignRun, runDesign } from '@stagecraft/workflow';
import type { GlobalOptions } from './args.ts';
import { errorLine } from './format.ts';
import type { Io } from './io.ts';

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a design file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/** Reads a file's text, or reports why it cannot be read as `error: <file>: <reason>`. */
export function readText(file: string, io: Io): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    io.err(errorLine({ path: file, message: READ_ERRORS[code] ?? `cannot read (${code || String(e)})` }));
    return undefined;
  }
}

export function reportIssues(issues: readonly Issue[], file: string, io: Io): void {
  for (const i of issues) io.err(errorLine(i, file));
}

/** The design in `file`, or undefined after printing every problem with it. */
export function loadDesign(file: string, io: Io): Design | undefined {
  const text = readText(file, io);
  if (text === undefined) return undefined;
  const parsed = parseDesignText(text);
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
