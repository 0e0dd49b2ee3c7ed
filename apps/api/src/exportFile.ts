/**
 * `POST /api/export` as a worker runs it: the design compiled and written in one of the formats
 * existing engines read. Pure: no I/O, no threads.
 */
import type { Design, Issue } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { compileFailure, opLimit } from './compileResponse.ts';
import type { ExportFormat } from './schemas.ts';

export interface ExportOptions {
  torchFormat?: 'compute_only' | 'compute_comms';
}

export type ExportOutcome =
  | { ok: true; text: string; mediaType: string; fileExtension: string }
  | { ok: false; status: 400 | 413 | 422; errors: Issue[] };

export function exportFile(
  design: Design,
  format: ExportFormat,
  _options: ExportOptions,
  maxOps: number,
): ExportOutcome {
  if (format !== 'plan') {
    return {
      ok: false,
      status: 400,
      errors: [
        { path: 'format', message: `the ${format} export is not available in this build yet (plan is)` },
      ],
    };
  }
  const result = compile(design, { maxOps, keepSnapshots: false });
  if (!result.ok) return compileFailure(result);
  const tooLarge = opLimit(result.ops, maxOps);
  if (tooLarge) return tooLarge;
  return {
    ok: true,
    text: `${JSON.stringify(result.plan, null, 2)}\n`,
    mediaType: 'application/json',
    fileExtension: 'json',
  };
}
