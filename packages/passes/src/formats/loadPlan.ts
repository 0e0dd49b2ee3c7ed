/**
 * Loading a `stagecraft/plan@2` the way a runtime must before it runs anything: the schema
 * (`parsePlanText`: JSON, format, every field) and then the proofs of `validatePlan` (waits name
 * instructions of the device, SEND/RECV pairs match in order, collectives agree, no wait cycle).
 */
import { type Issue, type Plan, parsePlanText, validatePlan } from '@stagecraft/ir';

export function loadPlan(text: string): { ok: true; plan: Plan } | { ok: false; errors: Issue[] } {
  const parsed = parsePlanText(text);
  if (!parsed.ok) return parsed;
  const issues = validatePlan(parsed.plan);
  return issues.length > 0 ? { ok: false, errors: issues } : parsed;
}
