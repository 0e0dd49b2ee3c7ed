/** `stagecraft export <design> --format piper|torch-csv|chrome-trace|plan [-o <file>]`. */
import { EXPORT_FORMATS, type ExportFormat, exportDesign } from '@stagecraft/workflow';
import type { InputOptions } from '../inputFile.ts';
import type { Io } from '../io.ts';
import { loadDesign, reportIssues } from '../load.ts';
import { choiceOption, type OptionValues, writeOutput } from './output.ts';

const TORCH_FORMATS = ['compute_only', 'compute_comms'] as const;
const DIALECTS = ['current', 'legacy'] as const;

export interface ExportCommand {
  kind: 'export';
  design: string;
  format: ExportFormat;
  output?: string;
  torchFormat?: (typeof TORCH_FORMATS)[number];
  dialect?: (typeof DIALECTS)[number];
}

export const EXPORT_OPTIONS = ['output', 'format', 'torch-format', 'dialect'] as const;

export const EXPORT_USAGE = `Usage: stagecraft export <design> --format <format> [-o <file>] [--torch-format <f>] [--dialect <d>]

Compiles the design and writes it for an engine or a viewer:
  piper          the fully expanded directive program with Piper's six ops only (JSON)
  torch-csv      torch.distributed.pipelining actions, one row per pipeline rank (CSV), as
                 _PipelineScheduleRuntime._load_csv reads them; refused with the reason for a
                 design that is not a pure pipeline (DualPipe, expert or tensor parallelism)
  chrome-trace   the simulated step in Trace Event Format, for Perfetto (ui.perfetto.dev)
  plan           the stagecraft/plan@2 per-device plan (docs/plan-format.md)
Without -o the file goes to stdout.

Options:
  --format <format>        piper, torch-csv, chrome-trace or plan
  -o, --output <file>      write to <file>
  --torch-format <f>       compute_only (default: compute actions; torch adds communication) or
                           compute_comms (every action, SEND/RECV and REDUCE_GRAD/UNSHARD/RESHARD
                           included, in the order the simulated step issues them)
  --dialect <d>            current (default: F, I, W, B) or legacy (B for the backward for inputs)

Examples:
  stagecraft export examples/dualpipev-p4-m10.json --format torch-csv -o dualpipev.csv
  stagecraft export examples/zbv-p4-m8.json --format chrome-trace -o zbv.trace.json`;

export function parseExportArgs(
  values: OptionValues,
  rest: readonly string[],
): { ok: true; command: ExportCommand } | { ok: false; error: string } {
  if (rest.length === 0) return { ok: false, error: 'export: missing the design file' };
  if (rest.length > 1) return { ok: false, error: `export: unexpected argument ${JSON.stringify(rest[1])}` };
  const format = choiceOption(values, 'format', EXPORT_FORMATS);
  if ('error' in format) return { ok: false, error: format.error };
  if (!format.value)
    return { ok: false, error: `export: --format is required (${EXPORT_FORMATS.join(', ')})` };
  const torchFormat = choiceOption(values, 'torch-format', TORCH_FORMATS);
  if ('error' in torchFormat) return { ok: false, error: torchFormat.error };
  const dialect = choiceOption(values, 'dialect', DIALECTS);
  if ('error' in dialect) return { ok: false, error: dialect.error };
  if (format.value !== 'torch-csv' && (torchFormat.value || dialect.value))
    return { ok: false, error: '--torch-format and --dialect apply to --format torch-csv only' };
  if (values.output === '') return { ok: false, error: '--output: needs a file name' };
  const command: ExportCommand = { kind: 'export', design: rest[0]!, format: format.value };
  if (typeof values.output === 'string') command.output = values.output;
  if (torchFormat.value) command.torchFormat = torchFormat.value;
  if (dialect.value) command.dialect = dialect.value;
  return { ok: true, command };
}

export function exportCommand(cmd: ExportCommand & InputOptions, io: Io): number {
  const design = loadDesign(cmd.design, io, cmd);
  if (!design) return 1;
  const r = exportDesign(design, cmd.format, {
    ...(cmd.torchFormat ? { torchFormat: cmd.torchFormat } : {}),
    ...(cmd.dialect ? { torchDialect: cmd.dialect } : {}),
  });
  if (!r.ok) {
    reportIssues(r.errors, cmd.design, io);
    return 1;
  }
  if (!writeOutput(r.text, cmd.output, io)) return 1;
  if (cmd.output !== undefined)
    io.out(`wrote ${cmd.output} (${cmd.format}, ${r.text.length.toLocaleString('en-US')} bytes)`);
  return 0;
}
