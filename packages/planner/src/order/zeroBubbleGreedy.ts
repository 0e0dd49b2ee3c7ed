/**
 * The Zero Bubble paper's automatic scheduler (Qi et al., "Zero Bubble Pipeline Parallelism",
 * ICLR 2024, §3.1 "Automatic scheduling"): ranks place their next action greedily in time, a
 * ready input backward (BI) first as it is on the critical path, else a forward while the memory
 * limit allows, and the weight backwards (BW), which nothing waits for, delayed to fill the time
 * a rank would otherwise wait. The paper tries a few switches of the heuristic and keeps the
 * best; `zeroBubbleOrders` returns one order per switch setting for the caller to time.
 */
import {
  type ActionCode,
  encode,
  type OrderShape,
  PASS_BI,
  PASS_BW,
  PASS_F,
  type StageCosts,
} from './orderTiming.ts';

export interface GreedySwitches {
  /** A ready forward before a ready BI (fills the pipeline sooner, holds more memory). */
  forwardFirst: boolean;
  /** Fill a wait with a BW only when the BW ends before the wait would (else: whenever waiting). */
  fillOnlyFitting: boolean;
}

export const GREEDY_SWITCHES: readonly GreedySwitches[] = [
  { forwardFirst: false, fillOnlyFitting: false },
  { forwardFirst: false, fillOnlyFitting: true },
  { forwardFirst: true, fillOnlyFitting: false },
  { forwardFirst: true, fillOnlyFitting: true },
];

/**
 * Per-rank orders the heuristic places with the given switches, every rank's stash within
 * `limit[rank]` bytes; undefined when some rank cannot hold even one more forward with nothing
 * left to free (a limit below one microbatch's stash).
 */
export function zeroBubbleOrders(
  s: OrderShape,
  c: StageCosts,
  limit: readonly number[],
  sw: GreedySwitches,
): ActionCode[][] | undefined {
  const S = s.stages;
  const m = s.microbatches;
  const ranks = s.ranks;
  const stagesOf: number[][] = Array.from({ length: ranks }, () => []);
  s.placement.forEach((r, vs) => {
    stagesOf[r]!.push(vs);
  });
  const endF = new Float64Array(S * m).fill(-1);
  const endBI = new Float64Array(S * m).fill(-1);
  const nextF = new Int32Array(S);
  const nextBI = new Int32Array(S);
  const nextW = new Int32Array(S);
  const free = new Float64Array(ranks);
  const held = new Float64Array(ranks);
  const pendingW: number[][] = Array.from({ length: ranks }, () => []);
  const orders: ActionCode[][] = Array.from({ length: ranks }, () => []);
  let left = 3 * S * m;

  const readyF = (vs: number): number => {
    const mb = nextF[vs]!;
    if (mb >= m) return Number.POSITIVE_INFINITY;
    if (vs === 0) return 0;
    const dep = endF[(vs - 1) * m + mb]!;
    if (dep < 0) return Number.POSITIVE_INFINITY;
    return dep + (s.placement[vs - 1] === s.placement[vs] ? 0 : c.sendF[vs - 1]!);
  };
  const readyBI = (vs: number): number => {
    const mb = nextBI[vs]!;
    if (mb >= m) return Number.POSITIVE_INFINITY;
    const own = endF[vs * m + mb]!;
    if (own < 0) return Number.POSITIVE_INFINITY;
    if (vs === S - 1) return own;
    const dep = endBI[(vs + 1) * m + mb]!;
    if (dep < 0) return Number.POSITIVE_INFINITY;
    return Math.max(own, dep + (s.placement[vs + 1] === s.placement[vs] ? 0 : c.sendB[vs + 1]!));
  };

  while (left > 0) {
    // The rank that can act earliest acts: a rank with a BW to run can always act at once.
    let rank = -1;
    let at = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ranks; r++) {
      let t = pendingW[r]!.length > 0 ? free[r]! : Number.POSITIVE_INFINITY;
      for (const vs of stagesOf[r]!) {
        const fits = held[r]! + c.alloc[vs]! <= limit[r]!;
        t = Math.min(t, Math.max(free[r]!, readyBI(vs)), fits ? Math.max(free[r]!, readyF(vs)) : t);
      }
      if (t < at) {
        at = t;
        rank = r;
      }
    }
    if (rank < 0) return undefined;
    const now = free[rank]!;
    let bestF = -1;
    let bestFReady = Number.POSITIVE_INFINITY;
    let bestB = -1;
    let bestBReady = Number.POSITIVE_INFINITY;
    for (const vs of stagesOf[rank]!) {
      const f = readyF(vs);
      // Later stages first on ties: they bring a microbatch closer to its backward.
      if (
        held[rank]! + c.alloc[vs]! <= limit[rank]! &&
        (f < bestFReady || (f === bestFReady && vs > bestF))
      ) {
        bestF = vs;
        bestFReady = f;
      }
      const b = readyBI(vs);
      if (b < bestBReady || (b === bestBReady && vs > bestB)) {
        bestB = vs;
        bestBReady = b;
      }
    }
    const fNow = bestF >= 0 && bestFReady <= now;
    const bNow = bestB >= 0 && bestBReady <= now;
    let pass: number;
    let vs: number;
    if (bNow && (!fNow || !sw.forwardFirst)) {
      pass = PASS_BI;
      vs = bestB;
    } else if (fNow) {
      pass = PASS_F;
      vs = bestF;
    } else {
      const wait = Math.min(bestFReady, bestBReady);
      const w = pendingW[rank]![0];
      const wMs = w === undefined ? 0 : c.BW[w]!;
      if (
        w !== undefined &&
        (!sw.fillOnlyFitting || now + wMs <= wait || wait === Number.POSITIVE_INFINITY)
      ) {
        pass = PASS_BW;
        vs = w;
      } else {
        // Nothing to run yet (or a BW that would overrun the wait): the rank waits for its next input.
        free[rank] = Number.isFinite(wait) ? Math.max(now, wait) : at;
        if (free[rank] === now) throw new Error('the heuristic waited without time passing');
        continue;
      }
    }
    let mb: number;
    let start = now;
    if (pass === PASS_F) {
      mb = nextF[vs]!++;
      start = Math.max(now, bestFReady);
      endF[vs * m + mb] = start + c.F[vs]!;
      held[rank]! += c.alloc[vs]!;
      free[rank] = start + c.F[vs]!;
    } else if (pass === PASS_BI) {
      mb = nextBI[vs]!++;
      start = Math.max(now, bestBReady);
      endBI[vs * m + mb] = start + c.BI[vs]!;
      held[rank]! -= c.freeBI[vs]!;
      free[rank] = start + c.BI[vs]!;
      pendingW[rank]!.push(vs);
    } else {
      pendingW[rank]!.shift();
      // BWs of a stage run in the order of their BIs.
      mb = nextW[vs]!++;
      held[rank]! -= c.freeBW[vs]!;
      free[rank] = now + c.BW[vs]!;
    }
    orders[rank]!.push(encode(s, pass, vs, mb));
    left--;
  }
  return orders;
}
