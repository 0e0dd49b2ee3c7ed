/**
 * Lookups into a plan the timeline needs beside the simulated events: each instruction by id (for
 * provenance, costs and an overlapped unit's members) and each SEND with its RECV (for arrows).
 * ir's PlanView answers both, each table built on first use: the first frame of a new result
 * draws without them unless it shows arrows or overlapped units, and hover details come later
 * still. An outline brings its transfers along, its SENDs and RECVs being left out.
 */
import { PlanView } from '@stagecraft/ir';
import type { TimelinePlan } from './timelinePlan.ts';

export type PlanIndex = PlanView<TimelinePlan['devices'][number]>;

export function indexPlan(plan: TimelinePlan): PlanIndex {
  return new PlanView(plan, plan.transfers);
}
