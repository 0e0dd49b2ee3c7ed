/**
 * Command-line arguments, parsed once into a `Command` or a usage error. Nothing here reads files
 * or prints: `main` decides what to do with the result.
 */
import { parseArgs } from 'node:util';
import { MAX_STEPS } from '@stagecraft/sim';
import {
  CALIBRATE_OPTIONS,
  CALIBRATE_USAGE,
  type CalibrateCommand,
  parseCalibrateArgs,
} from './commands/calibrate.ts';
import { COMPARE_OPTIONS, COMPARE_USAGE, type CompareCommand, parseCompareArgs } from './commands/compare.ts';
import type { CompileCommand } from './commands/compile.ts';
import { EXPORT_OPTIONS, EXPORT_USAGE, type ExportCommand, parseExportArgs } from './commands/export.ts';
import { IMPORT_OPTIONS, IMPORT_USAGE, type ImportCommand, parseImportArgs } from './commands/import.ts';
import { parseRunArgs, RUN_OPTIONS, RUN_USAGE, type RunCommand } from './commands/run.ts';
import type { SimulateCommand } from './commands/simulate.ts';
import type { ValidateCommand } from './commands/validate.ts';
import { describeAmbiguousValue, joinNegativeValues } from './dashValues.ts';
import type { GlobalOptions } from './inputFile.ts';

export const COMMANDS = [
  'validate',
  'compile',
  'simulate',
  'export',
  'import',
  'compare',
  'calibrate',
  'run',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export type Command =
  | { kind: 'help'; command?: CommandName }
  | { kind: 'version' }
  | (ValidateCommand & GlobalOptions)
  | (CompileCommand & GlobalOptions)
  | (SimulateCommand & GlobalOptions)
  | (ExportCommand & GlobalOptions)
  | (ImportCommand & GlobalOptions)
  | (CompareCommand & GlobalOptions)
  | (CalibrateCommand & GlobalOptions)
  | (RunCommand & GlobalOptions);

export type ParsedArgs = { ok: true; command: Command } | { ok: false; error: string; command?: CommandName };

const GLOBAL_USAGE = `Usage: stagecraft <command> [options]

Commands:
  validate <design>              check a design file; print "ok: <name> (<n> directives)"
  compile <design> [-o <file>]   compile a design to a stagecraft/plan@2 per-device plan
  simulate <design> [--json]     compile and simulate a design; print its timeline metrics
  export <design> --format <f>   write the design as piper, torch-csv, chrome-trace or plan
  import <file> --format <f>     read a torch-csv schedule or a Piper program into a design
  compare <design> <design> …    simulate designs and print them side by side
  calibrate <design> --trace <f> fit a design's costs to measured traces and replay it
  run <design | plan.json>       run the plan on PyTorch (one process per device) and compare
                                 it with a single-device run
  plan <design> [--max-memory G] search layouts (or per-device orders) for the fastest design
                                 that fits; the Pareto front (see "stagecraft plan --help")
  serve [--port <n>] [--db <f>]  the API and the web app on 127.0.0.1 (see "stagecraft serve --help")

Global options:
  --max-ops <n>           refuse designs whose DAG would exceed n ops (default 2,000,000)
  --max-input-bytes <n>   refuse input files larger than n bytes (default 67108864, 64 MiB);
                          only regular files are read (not devices, named pipes or directories)
  -h, --help              show usage (of a command with "stagecraft <command> --help")
  --version               print the version

Exit status: 0 on success, 1 on any error (bad arguments, unreadable file, invalid design).
Errors are printed to stderr, one per line, as "error: <path>: <reason>".`;

const COMMAND_USAGE: Record<CommandName, string> = {
  export: EXPORT_USAGE,
  import: IMPORT_USAGE,
  compare: COMPARE_USAGE,
  calibrate: CALIBRATE_USAGE,
  run: RUN_USAGE,
  validate: `Usage: stagecraft validate <design> [--max-ops <n>]

Parses the design and compiles it without simulating. Prints "ok: <name> (<n> directives)" and
exits 0, or prints one "error: <path>: <reason>" line per problem on stderr and exits 1.

Example:
  stagecraft validate examples/1f1b-p4-m8.json`,
  compile: `Usage: stagecraft compile <design> [-o <file>] [--max-ops <n>]

Compiles the design to a stagecraft/plan@2 document (@3 on device meshes): per device, per
stream, the ordered instructions a runtime executes. With -o the plan is written to <file>;
without it, to stdout.
Plans of more than 100,000 ops are written without indentation.

Options:
  -o, --output <file>   write the plan to <file>

Example:
  stagecraft compile examples/1f1b-p4-m8.json -o plan.json`,
  simulate: `Usage: stagecraft simulate <design> [--json] [--width <n>] [--steps <n>] [--max-ops <n>]

Compiles and simulates one training step. Prints makespan, bubble ratio (of the total and of
the ideal time, as Megatron reports it), per-device busy / idle time and peak memory, and for
small designs an ASCII timeline. With --steps, also the steady state: the time per step over n
steps in a row, each device starting its next step once its own optimizer step allows.

Options:
  --json          print exactly one JSON object: makespanMs, bubbleRatio, bubbleOverIdeal, ops,
                  devices [{device, busyMs, idleMs, peakMemoryBytes, peakActivationBytes}],
                  tokensPerSecond (when known), steadyState {steps, steadyStepMs,
                  tokensPerSecond?} (with --steps), timings {compileMs, simulateMs}
  --width <n>     width of the ASCII timeline in columns (default: the terminal's, or 100)
  --steps <n>     also simulate n steps in a row (2 to 64) and print the steady step time

Example:
  stagecraft simulate examples/1f1b-p4-m8.json --json`,
};

export function usage(command?: CommandName): string {
  return command ? COMMAND_USAGE[command] : GLOBAL_USAGE;
}

/** The hint printed after a usage error. */
export function usageHint(command?: CommandName): string {
  return command ? `run "stagecraft ${command} --help" for usage` : 'run "stagecraft --help" for usage';
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'max-ops': { type: 'string' },
  'max-input-bytes': { type: 'string' },
  output: { type: 'string', short: 'o' },
  json: { type: 'boolean' },
  width: { type: 'string' },
  steps: { type: 'string' },
  format: { type: 'string' },
  'torch-format': { type: 'string' },
  dialect: { type: 'string' },
  model: { type: 'string' },
  trace: { type: 'string', multiple: true },
  measured: { type: 'string', multiple: true },
  rank: { type: 'string' },
  dtype: { type: 'string' },
  hidden: { type: 'string' },
  backend: { type: 'string' },
  oversubscribe: { type: 'boolean' },
  keep: { type: 'boolean' },
} as const;

type OptionName = keyof typeof OPTIONS;

/** Options each command accepts besides the global ones. */
const COMMAND_OPTIONS: Record<CommandName, readonly OptionName[]> = {
  validate: [],
  compile: ['output'],
  simulate: ['json', 'width', 'steps'],
  export: EXPORT_OPTIONS,
  import: IMPORT_OPTIONS,
  compare: COMPARE_OPTIONS,
  calibrate: CALIBRATE_OPTIONS,
  run: RUN_OPTIONS,
};

function isCommand(s: string): s is CommandName {
  return (COMMANDS as readonly string[]).includes(s);
}

function positiveInt(name: string, raw: string): number | string {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    return `--${name}: expected a positive integer, got ${JSON.stringify(raw)}`;
  }
  return Number(raw);
}

/** node:util's parse errors, reworded as `<what>: <why>` without its internals. */
function describeParseError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const unknown = /^Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
  if (missing) return `${missing[1]}: needs a value`;
  const noValue = /^Option '(--[\w-]+)' does not take an argument/.exec(msg);
  if (noValue) return `${noValue[1]}: takes no value`;
  const ambiguous = describeAmbiguousValue(msg);
  if (ambiguous) return ambiguous;
  return msg.split('\n')[0] ?? msg;
}

export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  const first = argv.find((a) => !a.startsWith('-'));
  const named = first !== undefined && isCommand(first) ? first : undefined;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, OPTIONS),
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    return { ok: false, error: describeParseError(e), ...(named ? { command: named } : {}) };
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;

  if (values.version) return { ok: true, command: { kind: 'version' } };
  if (name === 'help') {
    const target = rest[0];
    if (target === undefined) return { ok: true, command: { kind: 'help' } };
    if (!isCommand(target)) return { ok: false, error: `unknown command ${JSON.stringify(target)}` };
    return { ok: true, command: { kind: 'help', command: target } };
  }
  if (name === undefined) {
    return values.help ? { ok: true, command: { kind: 'help' } } : { ok: false, error: 'no command given' };
  }
  if (!isCommand(name)) return { ok: false, error: `unknown command ${JSON.stringify(name)}` };
  if (values.help) return { ok: true, command: { kind: 'help', command: name } };

  const fail = (error: string): ParsedArgs => ({ ok: false, error, command: name });
  for (const opt of [
    'output',
    'json',
    'width',
    'steps',
    'format',
    'torch-format',
    'dialect',
    'model',
    'trace',
    'measured',
    'rank',
    'dtype',
    'hidden',
    'backend',
    'oversubscribe',
    'keep',
  ] as const) {
    if (values[opt] !== undefined && !COMMAND_OPTIONS[name].includes(opt)) {
      return fail(`${name} does not take --${opt}`);
    }
  }
  const global: GlobalOptions = {};
  for (const [option, key] of [
    ['max-ops', 'maxOps'],
    ['max-input-bytes', 'maxInputBytes'],
  ] as const) {
    const raw = values[option];
    if (raw === undefined) continue;
    const n = positiveInt(option, raw);
    if (typeof n === 'string') return fail(n);
    global[key] = n;
  }

  if (name === 'export' || name === 'import' || name === 'compare' || name === 'run') {
    const parse =
      name === 'export'
        ? parseExportArgs
        : name === 'import'
          ? parseImportArgs
          : name === 'compare'
            ? parseCompareArgs
            : parseRunArgs;
    const r = parse(values, rest);
    return r.ok ? { ok: true, command: { ...r.command, ...global } } : fail(r.error);
  }
  if (name === 'calibrate') {
    const r = parseCalibrateArgs(values, rest);
    return r.ok ? { ok: true, command: { ...r.command, ...global } } : fail(r.error);
  }
  if (rest.length === 0) return fail(`${name}: missing the design file`);
  if (rest.length > 1) return fail(`${name}: unexpected argument ${JSON.stringify(rest[1])}`);
  const design = rest[0]!;

  switch (name) {
    case 'validate':
      return { ok: true, command: { kind: 'validate', design, ...global } };
    case 'compile': {
      if (values.output === '') return fail('--output: needs a file name');
      const output = values.output;
      return { ok: true, command: { kind: 'compile', design, ...(output ? { output } : {}), ...global } };
    }
    case 'simulate': {
      const command: Command = { kind: 'simulate', design, json: values.json === true, ...global };
      if (values.width !== undefined) {
        const w = positiveInt('width', values.width);
        if (typeof w === 'string') return fail(w);
        command.width = w;
      }
      if (values.steps !== undefined) {
        const n = positiveInt('steps', values.steps);
        if (typeof n === 'string') return fail(n);
        if (n < 2 || n > MAX_STEPS) return fail(`--steps: must be from 2 to ${MAX_STEPS}, got ${n}`);
        command.steps = n;
      }
      return { ok: true, command };
    }
  }
}
