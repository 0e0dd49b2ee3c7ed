/** `stagecraft import <file> --format torch-csv|piper [--dialect current|legacy] [--model <file>] [-o design.json]`. */
import { basename } from 'node:path';
import {
  type Cluster,
  DESIGN_FORMAT,
  type Issue,
  isDesignFormat,
  type Model,
  parseDesign,
  parseJsonText,
} from '@stagecraft/ir';
import { importPiper, importTorchCsv } from '@stagecraft/workflow';
import { errorLine } from '../format.ts';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { readText } from '../load.ts';
import { choiceOption, type OptionValues, writeOutput } from './output.ts';

const FORMATS = ['torch-csv', 'piper'] as const;
const DIALECTS = ['current', 'legacy'] as const;

export interface ImportCommand {
  kind: 'import';
  file: string;
  format: (typeof FORMATS)[number];
  dialect?: (typeof DIALECTS)[number];
  model?: string;
  output?: string;
}

export const IMPORT_OPTIONS = ['output', 'format', 'dialect', 'model'] as const;

export const IMPORT_USAGE = `Usage: stagecraft import <file> --format torch-csv|piper [--dialect current|legacy] [--model <file>] [-o design.json]

Reads a schedule written for another engine and writes a stagecraft/design@3 whose split, place
and order directives reproduce it, to see, simulate and edit it:
  torch-csv   torch.distributed.pipelining actions, one row per rank (compute_only or
              compute_comms; communication actions are dropped, the compiler inserts its own)
  piper       a Piper program: a JSON array of place, replicate, shard, shard_tensor, split, order
The schedule runs on a synthetic model (1 ms per F, I and W, one block per stage) and an ideal
cluster with one device per rank, unless --model gives a design (its model and cluster) or a
model. Errors name the row and cell of the CSV, or the directive index of the program.

Options:
  --format <format>     torch-csv or piper
  --dialect <d>         torch-csv: current (default: F, I, W, B) or legacy (B for the backward for
                        inputs where a W follows, BW for the full backward)
  --model <file>        a design or a model JSON to run the schedule on
  -o, --output <file>   write the design to <file> (default: stdout)

Example:
  stagecraft import zb1p.csv --format torch-csv --dialect legacy -o zb1p.json`;

export function parseImportArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: ImportCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'import: missing the file to import' };
  if (rest.length > 1) return { ok: false, error: `import: unexpected argument ${JSON.stringify(rest[1])}` };
  const format = choiceOption(values, 'format', FORMATS);
  if ('error' in format) return { ok: false, error: format.error };
  if (!format.value) return { ok: false, error: 'import: --format is required (torch-csv or piper)' };
  const dialect = choiceOption(values, 'dialect', DIALECTS);
  if ('error' in dialect) return { ok: false, error: dialect.error };
  if (dialect.value && format.value !== 'torch-csv')
    return { ok: false, error: '--dialect applies to --format torch-csv only' };
  for (const name of ['output', 'model'] as const)
    if (values[name] === '') return { ok: false, error: `--${name}: needs a file name` };
  const command: ImportCommand = { kind: 'import', file: rest[0]!, format: format.value };
  if (dialect.value) command.dialect = dialect.value;
  if (typeof values.model === 'string') command.model = values.model;
  if (typeof values.output === 'string') command.output = values.output;
  return { ok: true, command };
}

/** The model (and, from a design, the cluster) of --model; undefined after reporting problems. */
function loadModel(
  file: string,
  io: Io,
  options: InputOptions,
): { model: Model; cluster?: Cluster } | undefined {
  const text = readText(file, io, options);
  if (text === undefined) return undefined;
  const json = parseJsonText(text);
  const fail = (errors: Issue[]) => {
    for (const i of errors)
      io.err(errorLine(i.path === '' ? { ...i, path: file } : { ...i, path: `${file}: ${i.path}` }));
    return undefined;
  };
  if (!json.ok) return fail(json.errors);
  const v = json.value as { format?: unknown };
  if (typeof v === 'object' && v !== null && isDesignFormat(v.format)) {
    const d = parseDesign(v);
    return d.ok ? { model: d.design.model, cluster: d.design.cluster } : fail(d.errors);
  }
  // A bare model: checked by the design schema, reported at its own fields.
  const d = parseDesign({
    format: DESIGN_FORMAT,
    name: 'model',
    model: v,
    cluster: { kind: 'ideal', devices: 1 },
    directives: [],
  });
  if (d.ok) return { model: d.design.model };
  return fail(d.errors.map((i) => ({ ...i, path: i.path.replace(/^model\.?/, '') })));
}

export function importCommand(cmd: ImportCommand & InputOptions & { maxOps?: number }, io: Io): number {
  const text = readText(cmd.file, io, cmd);
  if (text === undefined) return 1;
  const given = cmd.model === undefined ? {} : loadModel(cmd.model, io, cmd);
  if (!given) return 1;
  const name = `${basename(cmd.file)} (imported from ${cmd.format})`;
  const options = { ...given, name, ...(cmd.maxOps !== undefined ? { maxOps: cmd.maxOps } : {}) };
  const r =
    cmd.format === 'torch-csv'
      ? importTorchCsv(text, { ...options, ...(cmd.dialect ? { dialect: cmd.dialect } : {}) })
      : importPiper(text, options);
  if (!r.ok) {
    for (const i of r.errors) {
      const about = cmd.model !== undefined && /^(model|cluster)\b/.test(i.path) ? cmd.model : cmd.file;
      io.err(errorLine({ path: i.path === '' ? about : `${about}: ${i.path}`, message: i.message }));
    }
    return 1;
  }
  const json = `${JSON.stringify(r.design, null, 2)}\n`;
  if (!writeOutput(json, cmd.output, io)) return 1;
  if (cmd.output !== undefined) {
    const orders = r.design.directives.filter((d) => d.op === 'order').length;
    io.out(`wrote ${cmd.output}: ${r.design.directives.length} directives (${orders} orders, one per rank)`);
  }
  return 0;
}
