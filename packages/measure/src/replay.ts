/**
 * Predicted against measured, instruction by instruction: the step's error, percentiles of the
 * per-op duration error, and the instructions whose start or duration diverge most (the list a
 * user reads first when a schedule does not run as designed). Starts are compared from the
 * step's origin: the first start over all devices when their clocks agree, else each device's own.
 */
import { type Plan, PlanView } from '@stagecraft/ir';
import type { Simulation } from '@stagecraft/sim';
import { median, quantile } from './linearFit.ts';
import type { MatchedSpan } from './matchPlan.ts';

export interface Divergence {
  readonly device: number;
  readonly id: string;
  readonly measuredStartMs: number;
  readonly predictedStartMs: number;
  readonly measuredMs: number;
  readonly predictedMs: number;
}

export interface Replay {
  readonly measuredStepMs: number;
  readonly predictedStepMs: number;
  /** (predicted − measured) / measured, percent. */
  readonly stepErrorPct: number;
  /** |predicted − measured| / measured of compute durations, percent. */
  readonly opErrorPct: { p50: number; p90: number; max: number; ops: number };
  /** Largest divergences first. */
  readonly divergences: readonly Divergence[];
}

const COMPUTE = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP']);

export function replay(
  plan: Plan,
  sim: Simulation,
  matched: readonly MatchedSpan[],
  steps: readonly number[],
  alignedClocks: boolean,
  measuredStepMs: number,
  top = 20,
): Replay {
  const view = new PlanView(plan);
  const predicted = new Map<string, { start: number; end: number }>();
  const firstPredicted = new Map<number, number>();
  for (const e of sim.timeline ?? []) {
    predicted.set(`${e.device}|${e.id}`, { start: e.startMs, end: e.endMs });
    firstPredicted.set(
      e.device,
      Math.min(firstPredicted.get(e.device) ?? Number.POSITIVE_INFINITY, e.startMs),
    );
  }
  const used = new Set(steps);
  const origin = new Map<string, number>();
  for (const s of matched) {
    if (!used.has(s.step)) continue;
    const k = alignedClocks ? `${s.step}` : `${s.step}|${s.device}`;
    origin.set(k, Math.min(origin.get(k) ?? Number.POSITIVE_INFINITY, s.startMs));
  }
  const byOp = new Map<string, { device: number; id: string; starts: number[]; durs: number[] }>();
  for (const s of matched) {
    if (!used.has(s.step) || !COMPUTE.has(s.instruction.op)) continue;
    const k = `${s.device}|${s.instruction.id}`;
    let entry = byOp.get(k);
    if (!entry) byOp.set(k, (entry = { device: s.device, id: s.instruction.id, starts: [], durs: [] }));
    const o = origin.get(alignedClocks ? `${s.step}` : `${s.step}|${s.device}`)!;
    entry.starts.push(s.startMs - o);
    entry.durs.push(s.endMs - s.startMs);
  }
  const errors: number[] = [];
  const divergences: Divergence[] = [];
  for (const e of byOp.values()) {
    const dev = view.deviceOf(e.device)?.device ?? e.device;
    const p = predicted.get(`${dev}|${e.id}`);
    if (!p) continue;
    const measuredMs = median(e.durs);
    const predictedMs = p.end - p.start;
    if (measuredMs > 0) errors.push((Math.abs(predictedMs - measuredMs) / measuredMs) * 100);
    const base = alignedClocks ? 0 : (firstPredicted.get(dev) ?? 0);
    divergences.push({
      device: e.device,
      id: e.id,
      measuredStartMs: median(e.starts),
      predictedStartMs: p.start - base,
      measuredMs,
      predictedMs,
    });
  }
  const gap = (d: Divergence) =>
    Math.max(Math.abs(d.measuredStartMs - d.predictedStartMs), Math.abs(d.measuredMs - d.predictedMs));
  divergences.sort((a, b) => gap(b) - gap(a) || a.device - b.device || (a.id < b.id ? -1 : 1));
  return {
    measuredStepMs,
    predictedStepMs: sim.makespanMs,
    stepErrorPct:
      measuredStepMs > 0 ? ((sim.makespanMs - measuredStepMs) / measuredStepMs) * 100 : Number.NaN,
    opErrorPct: {
      p50: quantile(errors, 0.5),
      p90: quantile(errors, 0.9),
      max: errors.length ? Math.max(...errors) : Number.NaN,
      ops: errors.length,
    },
    divergences: divergences.slice(0, top),
  };
}
