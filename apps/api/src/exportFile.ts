/**
 * `POST /api/export` as a worker runs it: the design written by `exportRun` (@stagecraft/workflow)
 * in one of the formats existing engines and viewers read. The design is compiled once, under the
 * server's op limit, so bad input and size answer as on /api/compile (400 / 413 / 422 with the
 * same paths), and that compile is what the format is written from; what the format itself cannot
 * express is a 422. Pure: no I/O, no threads.
 */
import type { Design, Issue } from '@stagecraft/ir';
import { exportRun, runDesign } from '@stagecraft/workflow';
import { compileFailure, opLimit } from './compileResponse.ts';
import { underPath } from './errors.ts';
import { formatBytes } from './limits.ts';
import type { ExportFormat } from './schemas.ts';

export interface ExportOptions {
  torchFormat?: 'compute_only' | 'compute_comms';
  torchDialect?: 'current' | 'legacy';
}

export type ExportOutcome =
  | { ok: true; text: string; mediaType: string; fileExtension: string }
  | { ok: false; status: 400 | 413 | 422; errors: Issue[] };

export function exportFile(
  design: Design,
  format: ExportFormat,
  options: ExportOptions,
  maxOps: number,
  maxBytes: number = Number.POSITIVE_INFINITY,
): ExportOutcome {
  const run = runDesign(design, { maxOps, keepSnapshots: false });
  if (!run.ok) return compileFailure(run.compiled);
  const tooLarge = opLimit(run.compiled.ops, maxOps);
  if (tooLarge) return tooLarge;
  const r = exportRun(run, format, options);
  if (r.ok) {
    // Measured here, in the worker, so an oversized file never reaches the server's own heap.
    const bytes = Buffer.byteLength(r.text);
    if (bytes > maxBytes)
      return {
        ok: false,
        status: 413,
        errors: [
          {
            path: 'format',
            message: `the ${format} file is ${mebibytes(bytes)} (${bytes.toLocaleString('en-US')} bytes), over the export limit of ${formatBytes(maxBytes)}; write it with the CLI: stagecraft export <design> --format ${format}`,
          },
        ],
      };
    return { ok: true, text: r.text, mediaType: r.mediaType, fileExtension: r.fileExtension };
  }
  // The design compiles, so what remains is the format (or a plan the simulator cannot run).
  const errors = r.errors.map((i) => underPath(i.path.startsWith('devices') ? 'plan' : 'design', i));
  return { ok: false, status: 422, errors };
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
