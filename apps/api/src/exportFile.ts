/**
 * `POST /api/export` as a worker runs it: the design written by `exportDesign` (@stagecraft/workflow)
 * in one of the formats existing engines and viewers read. The design is compiled first under the
 * server's op limit, so bad input and size answer as on /api/compile (400 / 413 / 422 with the
 * same paths); what the format itself cannot express is a 422. Pure: no I/O, no threads.
 */
import type { Design, Issue } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { exportDesign } from '@stagecraft/workflow';
import { compileFailure, opLimit } from './compileResponse.ts';
import { underPath } from './errors.ts';
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
): ExportOutcome {
  const compiled = compile(design, { maxOps, keepSnapshots: false });
  if (!compiled.ok) return compileFailure(compiled);
  const tooLarge = opLimit(compiled.ops, maxOps);
  if (tooLarge) return tooLarge;
  const r = exportDesign(design, format, options);
  if (r.ok) return { ok: true, text: r.text, mediaType: r.mediaType, fileExtension: r.fileExtension };
  // The design compiles, so what remains is the format (or a plan the simulator cannot run).
  const errors = r.errors.map((i) => underPath(i.path.startsWith('devices') ? 'plan' : 'design', i));
  return { ok: false, status: 422, errors };
}
