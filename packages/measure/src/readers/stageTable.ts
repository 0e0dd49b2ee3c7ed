/**
 * A plain table of measured costs, for users who timed their stages with their own tools: per
 * pipeline stage (the PP tag's value) the milliseconds of F, BI and BW (or a fused B) per
 * microbatch, and optionally the point-to-point link. As CSV:
 *
 *     stage,F,BI,BW
 *     0,5.1,4.8,4.7
 *
 * or as JSON, which may also give the link:
 *
 *     {"format": "stagecraft/measured-costs@1", "stages": [{"stage": 0, "F": 5.1, "B": 9.5}],
 *      "p2p": {"bandwidthGBps": 12.5, "latencyUs": 110}}
 */
import { type Issue, issue } from '@stagecraft/ir';
import { z } from 'zod';

export const MEASURED_COSTS_FORMAT = 'stagecraft/measured-costs@1';

const ms = z.number().finite().min(0);

const stageRowSchema = z
  .strictObject({
    stage: z.number().int().min(0),
    F: ms.optional(),
    BI: ms.optional(),
    BW: ms.optional(),
    B: ms.optional(),
    FandB: ms.optional(),
    UPD: ms.optional(),
  })
  .refine((r) => r.F !== undefined || r.BI !== undefined || r.BW !== undefined || r.B !== undefined, {
    message: 'give at least one of F, BI, BW, B (milliseconds per microbatch)',
  });

export const measuredCostsSchema = z.strictObject({
  format: z.literal(MEASURED_COSTS_FORMAT),
  stages: z.array(stageRowSchema).min(1),
  p2p: z.strictObject({ bandwidthGBps: z.number().finite().positive(), latencyUs: ms }).optional(),
});

export type MeasuredCosts = z.infer<typeof measuredCostsSchema>;
export type StageCosts = MeasuredCosts['stages'][number];

export type StageTableRead = { ok: true; costs: MeasuredCosts } | { ok: false; errors: Issue[] };

/** Whether `text` is a stage table rather than a trace (a CSV, or JSON of that format). */
export function isStageTable(text: string, doc: unknown): boolean {
  if (doc === undefined) return /^\s*stage\s*,/i.test(text);
  return (
    typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === MEASURED_COSTS_FORMAT
  );
}

export function readStageJson(doc: unknown): StageTableRead {
  const r = measuredCostsSchema.safeParse(doc);
  if (r.success) return duplicates(r.data);
  return {
    ok: false,
    errors: r.error.issues.map((i) =>
      issue(i.path.filter((p) => typeof p !== 'symbol') as (string | number)[], i.message),
    ),
  };
}

const COLUMNS = ['stage', 'F', 'BI', 'BW', 'B', 'FandB', 'UPD'] as const;

export function readStageCsv(text: string): StageTableRead {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((l) => l.trim());
  const header = lines[0]!.split(',').map((c) => c.trim());
  const errors: Issue[] = [];
  header.forEach((c, i) => {
    if (!(COLUMNS as readonly string[]).includes(c))
      errors.push(issue(`row 1, column ${i + 1}`, `unknown column "${c}" (expected ${COLUMNS.join(', ')})`));
  });
  if (errors.length > 0) return { ok: false, errors };
  const stages: Record<string, number>[] = [];
  lines.slice(1).forEach((line, r) => {
    if (line === '') return;
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== header.length) {
      errors.push(issue(`row ${r + 2}`, `expected ${header.length} cells, got ${cells.length}`));
      return;
    }
    const row: Record<string, number> = {};
    cells.forEach((cell, c) => {
      if (cell === '') return;
      const v = Number(cell);
      if (!Number.isFinite(v) || v < 0)
        errors.push(issue(`row ${r + 2}, column ${c + 1}`, `expected milliseconds ≥ 0, got "${cell}"`));
      else row[header[c]!] = v;
    });
    stages.push(row);
  });
  if (errors.length === 0 && stages.length === 0)
    errors.push(issue('row 2', 'expected a row per stage after the header, e.g. "0,5.1,4.8,4.7"'));
  if (errors.length > 0) return { ok: false, errors };
  const parsed = readStageJson({ format: MEASURED_COSTS_FORMAT, stages });
  if (parsed.ok) return parsed;
  return { ok: false, errors: parsed.errors.map((e) => issue(csvPlace(e.path), e.message)) };
}

/** Rows of the CSV are `stages[i]` of the JSON form: a path named as the CSV's user sees it. */
export function csvPlace(path: string): string {
  const m = /^stages\[(\d+)\](?:\.(\w+))?$/.exec(path);
  return m ? `row ${Number(m[1]) + 2}${m[2] ? `, column "${m[2]}"` : ''}` : path;
}

function duplicates(costs: MeasuredCosts): StageTableRead {
  const seen = new Set<number>();
  const errors: Issue[] = [];
  costs.stages.forEach((s, i) => {
    if (seen.has(s.stage)) errors.push(issue(['stages', i, 'stage'], `stage ${s.stage} is given twice`));
    seen.add(s.stage);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, costs };
}
