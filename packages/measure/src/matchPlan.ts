/**
 * Measured spans against the plan they measure: each span finds its instruction by device and id.
 * A device lowered once for its replicas stands for them, so a replica's spans match its
 * representative's instructions. What does not match is listed, never dropped silently: a typo
 * in a `record_function` name would otherwise read as a missing op.
 */
import { type Instruction, type Plan, PlanView } from '@stagecraft/ir';
import type { MeasuredStep } from './measuredStep.ts';

export interface MatchedSpan {
  readonly device: number;
  readonly stream: string;
  readonly instruction: Instruction;
  readonly startMs: number;
  readonly endMs: number;
  readonly step: number;
}

export interface PlanMatch {
  readonly matched: readonly MatchedSpan[];
  /** Spans whose id the device's plan does not have. */
  readonly unmatched: readonly { device: number; id: string }[];
  /** Measured devices the plan does not have. */
  readonly unknownDevices: readonly number[];
  /** Instructions of a measured device that no span measured (in its first step). */
  readonly missing: readonly { device: number; id: string }[];
}

export function matchPlan(plan: Plan, measured: MeasuredStep): PlanMatch {
  const view = new PlanView(plan);
  const matched: MatchedSpan[] = [];
  const unmatched: { device: number; id: string }[] = [];
  const unknownDevices: number[] = [];
  const missing: { device: number; id: string }[] = [];
  for (const d of measured.devices) {
    const program = view.placesOf(d.device);
    if (!program) {
      unknownDevices.push(d.device);
      continue;
    }
    const seen = new Set<string>();
    for (const s of d.spans) {
      const found = program.get(s.id);
      if (!found) {
        if (s.step === 0) unmatched.push({ device: d.device, id: s.id });
        continue;
      }
      if (s.step === 0) seen.add(s.id);
      matched.push({ device: d.device, stream: found.stream, instruction: found.instruction, ...s });
    }
    for (const id of program.keys()) if (!seen.has(id)) missing.push({ device: d.device, id });
  }
  return { matched, unmatched, unknownDevices, missing };
}

/**
 * Steps a fit or a comparison reads: all but the first when there are several, since the first
 * pays allocator warm-up and connection setup (profilers skip it with their own `warmup` phase).
 */
export function steadySteps(matched: readonly { step: number }[]): number[] {
  const last = matched.reduce((m, s) => Math.max(m, s.step), 0);
  return Array.from({ length: last + 1 }, (_, i) => i).filter((s) => last === 0 || s > 0);
}
