/**
 * The planner panel's fields as typed (text) to a search request of the API (docs/api.md,
 * `POST /api/plan-jobs`), or the problems, one per field, named as the panel labels them.
 */

export interface PlanForm {
  /** GiB per device; empty: the cluster's own memory. */
  maxMemoryGiB: string;
  /** Sequences per step; empty: the design's own. */
  globalBatch: string;
  /** Seconds. */
  budgetS: string;
}

export interface PlanSearchRequest {
  maxMemoryGiB?: number;
  globalBatch?: number;
  budgetS: number;
}

export type PlanFormOutcome = { ok: true; request: PlanSearchRequest } | { ok: false; errors: string[] };

/** A first search of a small design finds its front in seconds; the API refuses past its own limit (120 s by default). */
export const DEFAULT_PLAN_FORM: PlanForm = { maxMemoryGiB: '', globalBatch: '', budgetS: '10' };

/** The longest budget the panel asks for: the API's default limit (apps/api/src/limits.ts, planBudgetS). */
export const MAX_BUDGET_S = 120;

export function parsePlanForm(form: PlanForm): PlanFormOutcome {
  const errors: string[] = [];
  const request: PlanSearchRequest = { budgetS: 0 };
  const memory = form.maxMemoryGiB.trim();
  if (memory !== '') {
    const n = Number(memory);
    if (!Number.isFinite(n) || n <= 0) errors.push(`max memory: expected GiB above 0, not "${memory}"`);
    else request.maxMemoryGiB = n;
  }
  const batch = form.globalBatch.trim();
  if (batch !== '') {
    const n = Number(batch);
    if (!Number.isInteger(n) || n < 1)
      errors.push(`global batch: expected a whole number of sequences, not "${batch}"`);
    else request.globalBatch = n;
  }
  const budget = form.budgetS.trim();
  const s = Number(budget);
  if (budget === '' || !Number.isFinite(s) || s <= 0 || s > MAX_BUDGET_S)
    errors.push(`budget: expected seconds above 0 and at most ${MAX_BUDGET_S}, not "${budget}"`);
  else request.budgetS = s;
  return errors.length > 0 ? { ok: false, errors } : { ok: true, request };
}
