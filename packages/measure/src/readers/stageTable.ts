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
import { type Issue, IssueList, issue } from '@stagecraft/ir';
import { DEFAULT_MAX_OPS } from '@stagecraft/passes';
import * as z from 'zod';

export const MEASURED_COSTS_FORMAT = 'stagecraft/measured-costs@1';

/**
 * More stages than any design within the compiler's op limit has: per microbatch a stage makes at
 * least F, BI, BW and a SEND and a RECV each way (expandSchedule.ts's estimate, 7 ops). A table
 * of a million stages once held calibrate for minutes before any stage was compared.
 */
export const MAX_TABLE_STAGES = Math.floor(DEFAULT_MAX_OPS / 7);

function tooManyStages(rows: number, path: string): StageTableRead | undefined {
  if (rows <= MAX_TABLE_STAGES) return undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  return {
    ok: false,
    errors: [
      issue(
        path,
        `${n(rows)} stages: no design within the op limit of ${n(DEFAULT_MAX_OPS)} has more than ${n(MAX_TABLE_STAGES)}`,
      ),
    ],
  };
}

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
  const rows = typeof doc === 'object' && doc !== null ? (doc as { stages?: unknown }).stages : undefined;
  const many = Array.isArray(rows) ? tooManyStages(rows.length, 'stages') : undefined;
  if (many) return many;
  const r = measuredCostsSchema.safeParse(doc);
  if (r.success) return duplicates(r.data);
  const errors = new IssueList();
  for (const i of r.error.issues)
    errors.push(issue(i.path.filter((p) => typeof p !== 'symbol') as (string | number)[], i.message));
  return { ok: false, errors: errors.issues() };
}

const COLUMNS = ['stage', 'F', 'BI', 'BW', 'B', 'FandB', 'UPD'] as const;

export function readStageCsv(text: string): StageTableRead {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((l) => l.trim());
  const many = tooManyStages(lines.filter((l) => l !== '').length - 1, `row ${MAX_TABLE_STAGES + 2}`);
  if (many) return many;
  const header = lines[0]!.split(',').map((c) => c.trim());
  const errors = new IssueList();
  header.forEach((c, i) => {
    if (!(COLUMNS as readonly string[]).includes(c))
      errors.add(`row 1, column ${i + 1}`, `unknown column "${c}" (expected ${COLUMNS.join(', ')})`);
  });
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
  const stages: Record<string, number>[] = [];
  lines.slice(1).forEach((line, r) => {
    if (line === '') return;
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== header.length) {
      errors.add(`row ${r + 2}`, `expected ${header.length} cells, got ${cells.length}`);
      return;
    }
    const row: Record<string, number> = {};
    cells.forEach((cell, c) => {
      if (cell === '') return;
      const v = Number(cell);
      if (!Number.isFinite(v) || v < 0)
        errors.add(`row ${r + 2}, column ${c + 1}`, `expected milliseconds ≥ 0, got "${cell.slice(0, 40)}"`);
      else row[header[c]!] = v;
    });
    stages.push(row);
  });
  if (errors.count === 0 && stages.length === 0)
    errors.add('row 2', 'expected a row per stage after the header, e.g. "0,5.1,4.8,4.7"');
  if (errors.count > 0) return { ok: false, errors: errors.issues() };
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
  const errors = new IssueList();
  costs.stages.forEach((s, i) => {
    if (seen.has(s.stage)) errors.push(issue(['stages', i, 'stage'], `stage ${s.stage} is given twice`));
    seen.add(s.stage);
  });
  return errors.count > 0 ? { ok: false, errors: errors.issues() } : { ok: true, costs };
}
