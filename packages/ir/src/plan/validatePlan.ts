/**
 * Proves a plan can run before anything runs it: its layout builds without issues (every wait
 * names an instruction of its device, every SEND has its RECV, every collective is issued by all
 * its members and agrees with itself; planLayout.ts) and it keeps the rules a runtime adds
 * (planIssues.ts: unique ids, waits earlier on their own stream, SEND/RECV and collectives in
 * order, no wait cycle) and an OVERLAP's members are independent (overlapIssues.ts). Each problem is reported once, with the path of the instruction at fault.
 *
 * A compiled plan is proven on the layout of its columns (`provesLayout`), without making one
 * instruction object; any other plan on the layout of its objects (`validatePlan`).
 */

import type { Issue } from '../issue/issue.ts';
import { type ArraySource, FRESH } from '../memory/arrayPool.ts';
import { IssueList } from './issueList.ts';
import { layoutFromObjects } from './layoutFromObjects.ts';
import { overlapIssues } from './overlapIssues.ts';
import type { Plan } from './plan.ts';
import { planIssues } from './planIssues.ts';
import type { PlanLayout } from './planLayout.ts';

export interface ValidateOptions {
  /** At most this many issues are reported (default 20). */
  maxIssues?: number;
  /**
   * The caller guarantees that ids are unique per device, which skips the one check that hashes
   * every id. `compile` does: a plan's ids are the DAG's node ids, unique by construction.
   */
  uniqueIds?: boolean;
}

export function validatePlan(plan: Plan, options: number | ValidateOptions = {}): Issue[] {
  const o = typeof options === 'number' ? { maxIssues: options } : options;
  const issues = new IssueList(o.maxIssues ?? 20);
  const layout = layoutFromObjects(plan, issues);
  if (layout !== undefined && issues.count === 0) planIssues(layout, issues, o.uniqueIds === true);
  if (issues.count === 0) overlapIssues(plan, issues);
  return issues.list;
}

/**
 * True when a compiled plan's layout (passes/lower/layoutFromColumns.ts) keeps every rule; false when its plan
 * must be validated from its objects to say what is wrong. Ids are unique by construction.
 */
export function provesLayout(layout: PlanLayout, scratch: ArraySource = FRESH): boolean {
  const issues = new IssueList(1);
  planIssues(layout, issues, true, scratch);
  return issues.count === 0;
}
