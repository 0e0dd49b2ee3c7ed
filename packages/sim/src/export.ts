/**
 * `exportDesign`: a design as the file an engine or a viewer takes, the one function the API
 * (`POST /api/export`), the CLI and the web app build against. Every failure is a list of issues
 * (compile errors with their directive paths, a design torch cannot run, a deadlocked plan).
 */
import type { Design, Issue } from '@stagecraft/ir';
import {
  compile,
  exportPiperProgram,
  exportTorchCsv,
  type TorchDialect,
  type TorchFormat,
} from '@stagecraft/passes';
import { simulate } from './simulate.ts';
import { chromeTrace } from './trace.ts';

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

export function exportDesign(
  design: Design,
  format: ExportFormat,
  options: ExportOptions = {},
): ExportResult {
  if (!EXPORT_FORMATS.includes(format))
    return {
      ok: false,
      errors: [
        {
          path: 'format',
          message: `unknown export format ${JSON.stringify(format)} (expected ${EXPORT_FORMATS.join(', ')})`,
        },
      ],
    };
  const compiled = compile(design, { keepSnapshots: false });
  if (!compiled.ok) return { ok: false, errors: compiled.errors };
  const { plan, program, ops, dag } = compiled;
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
        const s = simulate(plan, { keepTimeline: true });
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
      const s = simulate(plan, { keepTimeline: true });
      if (!s.ok) return { ok: false, errors: s.errors };
      const trace = chromeTrace(plan, s.sim, { program });
      return done(`${JSON.stringify(trace)}\n`);
    }
  }
}
