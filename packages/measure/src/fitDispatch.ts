/**
 * The runtime's time between ops: a measured op rarely starts the moment its stream frees, since
 * the runtime first has to issue it (its loop, Python dispatch, waits bookkeeping). No design cost
 * carried that time, so a calibrated design replayed ops within a few percent and the step a third
 * short. It is fitted here from the gaps that are nothing but that: an op's start after the end of
 * the op before it on its stream, when everything it waits for had ended by then (a wait on a RECV
 * or on another stream's op is the schedule's time, not dispatch). The simulator charges the fit
 * to every stream-occupying instruction (the cluster's `dispatchMs`).
 */
import { type Instruction, type Plan, PlanView } from '@stagecraft/ir';
import type { CostFit } from './fitCosts.ts';
import type { MatchedSpan } from './matchPlan.ts';

/** Ops whose measured span is the stream's own time: the ones a gap is read between. */
const OCCUPYING = new Set(['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD', 'OVERLAP', 'OFFLOAD', 'RELOAD']);

/**
 * Per-instruction dispatch time: the trimmed mean (the middle 80%) of the clean gaps. A mean, since
 * the simulator adds the time once per instruction and a step is their sum; trimmed, since a gap
 * now and then is another process taking the core, not the runtime's work.
 */
export function fitDispatch(plan: Plan, spans: readonly MatchedSpan[]): CostFit | undefined {
  const gaps = dispatchGaps(plan, spans);
  if (gaps.length === 0) return undefined;
  return { ms: trimmedMean(gaps, 0.1), samples: gaps.length };
}

/**
 * The clean gaps (ms): an op's start after the end of the op right before it in its stream's
 * plan order (both measured), everything it waits for ended by then.
 */
export function dispatchGaps(plan: Plan, spans: readonly MatchedSpan[]): number[] {
  const view = new PlanView(plan);
  const endOf = new Map<string, number>();
  const streams = new Map<string, MatchedSpan[]>();
  for (const s of spans) {
    endOf.set(`${s.step}|${s.device}|${s.instruction.id}`, s.endMs);
    const k = `${s.step}|${s.device}|${s.stream}`;
    let list = streams.get(k);
    if (!list) streams.set(k, (list = []));
    list.push(s);
  }
  const gaps: number[] = [];
  for (const list of streams.values()) {
    list.sort((a, b) => a.startMs - b.startMs);
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1]!;
      const op = list[i]!;
      if (!OCCUPYING.has(before.instruction.op) || !OCCUPYING.has(op.instruction.op)) continue;
      const at = view.placesOf(op.device);
      if (at?.get(op.instruction.id)?.index !== (at?.get(before.instruction.id)?.index ?? -2) + 1) continue;
      const waitsDone = waitsOf(op.instruction).every((id) => {
        const end = endOf.get(`${op.step}|${op.device}|${id}`);
        return end !== undefined && end <= before.endMs;
      });
      if (!waitsDone) continue;
      const gap = op.startMs - before.endMs;
      if (gap >= 0) gaps.push(gap);
    }
  }
  return gaps;
}

/** What an op waits for; a pair's members waiting for one another run inside it, not before it. */
function waitsOf(ins: Instruction): readonly string[] {
  if (ins.op !== 'OVERLAP') return ins.waits;
  const own = new Set(ins.members.map((m) => m.id));
  return [...ins.waits, ...ins.members.flatMap((m) => m.waits)].filter((id) => !own.has(id));
}

function trimmedMean(xs: readonly number[], cut: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const drop = Math.floor(s.length * cut);
  const kept = s.slice(drop, s.length - drop);
  return kept.reduce((t, x) => t + x, 0) / kept.length;
}
