/**
 * The `stagecraft` command. `main` never throws and never prints a stack for bad input: every
 * failure the user can fix is an `error: <path>: <reason>` line; anything else is a bug, reported
 * as `error: internal: <message>` (with the stack when STAGECRAFT_DEBUG=1).
 */
import { readFileSync } from 'node:fs';
import { type Command, parseCommandLine, usage, usageHint } from './args.ts';
import { calibrateCommand } from './commands/calibrate.ts';
import { compareCommand } from './commands/compare.ts';
import { compilePlan } from './commands/compile.ts';
import { exportCommand } from './commands/export.ts';
import { importCommand } from './commands/import.ts';
import { runCommand } from './commands/run.ts';
import { simulate } from './commands/simulate.ts';
import { validate } from './commands/validate.ts';
import { type Io, processIo } from './io.ts';

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function run(command: Command, io: Io): number {
  switch (command.kind) {
    case 'help':
      io.out(usage(command.command));
      return 0;
    case 'version':
      io.out(`stagecraft ${version()}`);
      return 0;
    case 'validate':
      return validate(command, io);
    case 'compile':
      return compilePlan(command, io);
    case 'simulate':
      return simulate(command, io, process.stdout.isTTY ? process.stdout.columns : undefined);
    case 'export':
      return exportCommand(command, io);
    case 'import':
      return importCommand(command, io);
    case 'compare':
      return compareCommand(command, io);
    case 'calibrate':
      return calibrateCommand(command, io);
    case 'run':
      return runCommand(command, io);
  }
}

/** Runs the command line `argv` (without node and the script); returns the exit status. */
export function main(argv: readonly string[], io: Io = processIo): number {
  try {
    const parsed = parseCommandLine(argv);
    if (!parsed.ok) {
      io.err(`error: ${parsed.error}`);
      io.err(usageHint(parsed.command));
      return 1;
    }
    return run(parsed.command, io);
  } catch (e) {
    reportInternal(e, io);
    return 1;
  }
}

export function reportInternal(e: unknown, io: Io = processIo): void {
  const message = e instanceof Error ? e.message : String(e);
  io.err(`error: internal: ${message.split('\n')[0]}`);
  if (process.env.STAGECRAFT_DEBUG === '1' && e instanceof Error && e.stack) io.err(e.stack);
}
