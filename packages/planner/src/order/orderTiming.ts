/**
 * The step and the stashed memory of per-rank orders on measured stage costs: a list schedule in
 * which each rank runs its order one action after the other, an action starting when the rank is
 * free and its inputs have arrived (the producer's end plus the p2p time when it ran on another
 * rank). On an ideal cluster this is what the simulator computes; on a real one it leaves out
 * what the stage costs do not capture (collectives outside the pipeline's slots, link sharing),
 * so the search ranks candidates by it and the simulator has the last word.
 */
import type { Pipeline } from './pipeline.ts';

/** Per virtual stage, measured on the design (stageCosts.ts). */
export interface StageCosts {
  /** ms of one microbatch's forward, input backward and weight backward. */
  readonly F: readonly number[];
  readonly BI: readonly number[];
  readonly BW: readonly number[];
  /** ms from the end of F on stage s to its arrival at stage s+1, when they are on different ranks. */
  readonly sendF: readonly number[];
  /** ms from the end of BI on stage s to its arrival at stage s−1, when they are on different ranks. */
  readonly sendB: readonly number[];
  /** Bytes F stashes when it starts, and BI and BW release when they end. */
  readonly alloc: readonly number[];
  readonly freeBI: readonly number[];
  readonly freeBW: readonly number[];
}

export const PASS_F = 0;
export const PASS_BI = 1;
export const PASS_BW = 2;

/** An action as one integer: (pass · stages + stage) · microbatches + mb. */
export type ActionCode = number;

export interface OrderShape {
  readonly stages: number;
  readonly microbatches: number;
  readonly placement: readonly number[];
  readonly ranks: number;
}

export function shapeOf(p: Pipeline): OrderShape {
  return { stages: p.placement.length, microbatches: p.microbatches, placement: p.placement, ranks: p.ranks };
}

export const encode = (s: OrderShape, pass: number, stage: number, mb: number): ActionCode =>
  (pass * s.stages + stage) * s.microbatches + mb;

export function decode(s: OrderShape, a: ActionCode): { pass: number; stage: number; mb: number } {
  const mb = a % s.microbatches;
  const rest = (a - mb) / s.microbatches;
  const stage = rest % s.stages;
  return { pass: (rest - stage) / s.stages, stage, mb };
}

export interface OrderTiming {
  stepMs: number;
  /** End of each action, by code. */
  end: Float64Array;
}

/**
 * Times of `orders` (per rank, the action codes it runs in order), or undefined when they
 * deadlock: a rank waits for an action that a rank still waiting itself would run later.
 */
export function timeOrders(
  s: OrderShape,
  c: StageCosts,
  orders: readonly (readonly ActionCode[])[],
): OrderTiming | undefined {
  const S = s.stages;
  const m = s.microbatches;
  const end = new Float64Array(3 * S * m).fill(-1);
  const next = new Int32Array(orders.length);
  const free = new Float64Array(orders.length);
  let left = 0;
  for (const o of orders) left += o.length;
  let progress = true;
  while (left > 0 && progress) {
    progress = false;
    for (let r = 0; r < orders.length; r++) {
      const order = orders[r]!;
      while (next[r]! < order.length) {
        const a = order[next[r]!]!;
        const mb = a % m;
        const rest = (a - mb) / m;
        const stage = rest % S;
        const pass = (rest - stage) / S;
        let ready = 0;
        let duration: number;
        if (pass === PASS_F) {
          duration = c.F[stage]!;
          if (stage > 0) {
            const dep = end[(stage - 1) * m + mb]!;
            if (dep < 0) break;
            ready = dep + (s.placement[stage - 1] === s.placement[stage] ? 0 : c.sendF[stage - 1]!);
          }
        } else if (pass === PASS_BI) {
          duration = c.BI[stage]!;
          const own = end[stage * m + mb]!;
          if (own < 0) break;
          ready = own;
          if (stage < S - 1) {
            const dep = end[(S + stage + 1) * m + mb]!;
            if (dep < 0) break;
            const arrives = dep + (s.placement[stage + 1] === s.placement[stage] ? 0 : c.sendB[stage + 1]!);
            if (arrives > ready) ready = arrives;
          }
        } else {
          duration = c.BW[stage]!;
          ready = end[(S + stage) * m + mb]!;
          if (ready < 0) break;
        }
        const start = Math.max(ready, free[r]!);
        end[a] = start + duration;
        free[r] = start + duration;
        next[r]!++;
        left--;
        progress = true;
      }
    }
  }
  if (left > 0) return undefined;
  let stepMs = 0;
  for (const f of free) if (f > stepMs) stepMs = f;
  return { stepMs, end };
}

/** Peak of stashed bytes while a rank runs `order` (F allocates when it starts, BI and BW free when they end, or allocate when negative). */
export function stashPeak(s: OrderShape, c: StageCosts, order: readonly ActionCode[]): number {
  let held = 0;
  let peak = 0;
  const S = s.stages;
  const m = s.microbatches;
  for (const a of order) {
    const rest = (a - (a % m)) / m;
    const stage = rest % S;
    const pass = (rest - stage) / S;
    if (pass === PASS_F) held += c.alloc[stage]!;
    else held -= pass === PASS_BI ? c.freeBI[stage]! : c.freeBW[stage]!;
    // A negative free allocates: a BI whose recomputed or reloaded stash waits for its BW.
    if (held > peak) peak = held;
  }
  return peak;
}
