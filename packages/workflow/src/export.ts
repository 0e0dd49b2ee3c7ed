/**
 * Exports: a design as the file an engine or a viewer takes, the one implementation the API
 * (`POST /api/export`), the CLI and the web app build against. An export reads a run (run.ts), so
 * a caller that compiled the design already (the API, to check its size) does not compile it
 * again. Every failure is a list of issues (compile errors with their directive paths, a design
 * torch cannot run, a deadlocked plan).
 */
import type { Design, Issue } from '@stagecraft/ir';
import { exportPiperProgram, exportTorchCsv, type TorchDialect, type TorchFormat } from '@stagecraft/passes';
import { chromeTrace } from '@stagecraft/sim';
import { type DesignRun, runDesign, simulateRun } from './run.ts';

export type ExportFormat = 'piper' | 'torch-csv' | 'chrome-trace' | 'plan';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['piper', 'torch-csv', 'chrome-trace', 'plan'];

export interface ExportOptions {
  torchFormat?: TorchFormat;
  /** Spelling of torch actions (default `current`); `legacy` is for older releases. */
  torchDialect?: TorchDialect;
}

export type ExportResult =
  | { ok: true; text: string; mediaType: string; fileExtension: string }
  | { ok: false; errors: Issue[] };

const FILE: Record<ExportFormat, { mediaType: string; fileExtension: string }> = {
  piper: { mediaType: 'application/json', fileExtension: 'piper.json' },
  'torch-csv': { mediaType: 'text/csv', fileExtension: 'csv' },
  'chrome-trace': { mediaType: 'application/json', fileExtension: 'trace.json' },
  plan: { mediaType: 'application/json', fileExtension: 'plan.json' },
};

/** Plans above this many ops are written without indentation. */
const INDENT_LIMIT = 100_000;

/** `design` compiled (under the compiler's default op limit) and written in `format`. */
export function exportDesign(
  design: Design,
  format: ExportFormat,
  options: ExportOptions = {},
): ExportResult {
  // An unknown format is refused before the compile it would waste.
  const unknown = unknownFormat(format);
  if (unknown) return unknown;
  const run = runDesign(design, { keepSnapshots: false });
  if (!run.ok) return { ok: false, errors: run.errors };
  return exportRun(run, format, options);
}

/** The compiled design of `run` written in `format`; simulates the run when the format needs it. */
export function exportRun(run: DesignRun, format: ExportFormat, options: ExportOptions = {}): ExportResult {
  const unknown = unknownFormat(format);
  if (unknown) return unknown;
  const { design } = run;
  const { plan, program, ops, dag } = run.compiled;
  const done = (text: string): ExportResult => ({ ok: true, text, ...FILE[format] });
  switch (format) {
    case 'plan':
      return done(`${JSON.stringify(plan, null, ops > INDENT_LIMIT ? undefined : 2)}\n`);
    case 'piper': {
      const r = exportPiperProgram(design, program, plan, dag);
      return r.ok ? done(r.text) : r;
    }
    case 'torch-csv': {
      const torchFormat = options.torchFormat ?? 'compute_only';
      let startMs: ((device: number, id: string) => number | undefined) | undefined;
      if (torchFormat === 'compute_comms') {
        const s = simulateRun(run, true).result;
        if (!s.ok) return { ok: false, errors: s.errors };
        const starts = new Map<string, number>();
        for (const e of s.sim.timeline ?? []) starts.set(`${e.device}|${e.id}`, e.startMs);
        startMs = (device, id) => starts.get(`${device}|${id}`);
      }
      const r = exportTorchCsv(plan, program, {
        format: torchFormat,
        dialect: options.torchDialect ?? 'current',
        ...(startMs ? { startMs } : {}),
      });
      return r.ok ? done(r.text) : r;
    }
    case 'chrome-trace': {
      const s = simulateRun(run, true).result;
      if (!s.ok) return { ok: false, errors: s.errors };
      const trace = chromeTrace(plan, s.sim, { program });
      return done(`${JSON.stringify(trace)}\n`);
    }
  }
}

function unknownFormat(format: string): ExportResult | undefined {
  if ((EXPORT_FORMATS as readonly string[]).includes(format)) return undefined;
  return {
    ok: false,
    errors: [
      {
        path: 'format',
        message: `unknown export format ${JSON.stringify(format)} (expected ${EXPORT_FORMATS.join(', ')})`,
      },
    ],
  };
}
