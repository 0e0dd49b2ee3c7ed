/** Request bodies and parameters, parsed once at the edge into typed values or a 400 naming the path. */
import { type Design, fromZod, type Issue, parseDesign } from '@stagecraft/ir';
import { designSizeIssue } from '@stagecraft/passes';
import { MAX_STEPS } from '@stagecraft/sim';
import * as z from 'zod';
import { magnitudeIssues } from './designMagnitude.ts';
import { DESIGN_ID } from './designStore.ts';
import { ApiError, underPath } from './errors.ts';

export const EXPORT_FORMATS = ['piper', 'torch-csv', 'chrome-trace', 'plan'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const includeSchema = z.strictObject({
  snapshots: z.enum(['none', 'summary', 'full']).optional(),
  timeline: z.boolean().optional(),
  plan: z.boolean().optional(),
  dag: z.boolean().optional(),
  steps: z.number().int().min(2).max(MAX_STEPS).optional(),
});

const revision = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const compileBodySchema = z.strictObject({
  design: z.unknown().optional(),
  designId: z.string().min(1).max(200).optional(),
  revision: revision.optional(),
  include: includeSchema.optional(),
});

export const exportBodySchema = z.strictObject({
  design: z.unknown().optional(),
  format: z.enum(EXPORT_FORMATS),
  options: z
    .strictObject({
      torchFormat: z.enum(['compute_only', 'compute_comms']).optional(),
      torchDialect: z.enum(['current', 'legacy']).optional(),
    })
    .optional(),
});

export const createDesignBodySchema = z.strictObject({
  design: z.unknown().optional(),
  id: z.string().optional(),
});

export const putDesignBodySchema = z.strictObject({
  design: z.unknown().optional(),
  baseVersion: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  /** The example a new design is the working copy of: an id as designs have (designStore.DESIGN_ID). */
  example: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{0,63}$/,
      'expected an example id: a-z, 0-9, "." and "-", at most 64 characters',
    )
    .optional(),
});

/** A layout search (`POST /api/plan-jobs`); the budget's upper bound is the server's (Limits.planBudgetS). */
export const planJobBodySchema = z.strictObject({
  design: z.unknown().optional(),
  maxMemoryGiB: z.number().positive().max(1_000_000).optional(),
  globalBatch: z.number().int().min(1).max(100_000_000).optional(),
  budgetS: z.number().positive().optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
});

/** A search given no budget runs this long, in seconds: a first front on a small design. */
export const DEFAULT_PLAN_BUDGET_S = 10;

/** A plan job's id from the URL (what PlanJobs hands out: a UUID), or a 400 naming `id`. */
export function planJobId(raw: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(raw)) {
    throw new ApiError(400, {
      path: 'id',
      message: `not a plan job id (expected the UUID POST /api/plan-jobs answered): ${JSON.stringify(raw.slice(0, 80))}`,
    });
  }
  return raw;
}

/** The body parsed by `schema`, or a 400 with one issue per problem. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, { path: '', message: 'expected a JSON object as the request body' });
  }
  const r = schema.safeParse(body);
  if (!r.success) throw new ApiError(400, fromZod(r.error));
  return r.data;
}

/** The `design` field of a body as a Design (migrated, validated), or a 400 with paths under `design`. */
export function designField(value: unknown): Design {
  if (value === undefined) {
    throw new ApiError(400, { path: 'design', message: 'required field missing (expected a design object)' });
  }
  const parsed = parseDesign(value);
  if (!parsed.ok)
    throw new ApiError(
      400,
      parsed.errors.map((i: Issue) => underPath('design', i)),
    );
  const design = parsed.design;
  // JSON may carry a lone surrogate ("\ud800"), which no UTF-8 text holds: the store's name
  // column and a file name would each read it back differently. U+FFFD in its place makes every
  // route read back one name.
  if (typeof design.name === 'string' && LONE_SURROGATE.test(design.name)) {
    return { ...design, name: design.name.replace(LONE_SURROGATES, '\uFFFD') };
  }
  return design;
}

/** With the u flag, a surrogate pair is one code point: only unpaired halves match. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** A design to compile: parsed as `designField`, and small enough for the op limit (413). */
export function compilableDesign(value: unknown, maxOps: number): Design {
  const design = designField(value);
  const huge = magnitudeIssues(design, ['design']);
  if (huge.length > 0) throw new ApiError(400, huge);
  const tooLarge = designSizeIssue(design, maxOps);
  if (tooLarge) throw new ApiError(413, tooLarge);
  return design;
}

/** A design id from the URL, or a 400 naming `id`. */
export function designId(raw: string): string {
  if (!DESIGN_ID.test(raw)) {
    throw new ApiError(400, {
      path: 'id',
      message: `not a design id (expected 1 to 64 of a-z, 0-9 and "-", starting with a letter or digit): ${JSON.stringify(raw.slice(0, 80))}`,
    });
  }
  return raw;
}

/** A version number from the URL, or a 400 naming `version`. */
export function versionNumber(raw: string): number {
  const n = Number(raw);
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new ApiError(400, {
      path: 'version',
      message: `not a version number (expected an integer ≥ 1): ${JSON.stringify(raw.slice(0, 80))}`,
    });
  }
  return n;
}
