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
  /**
   * When both are ready, the other pass than the rank's last F or BI: the one-forward-one-backward
   * steady state ZB-H1 keeps, which reaches its step on uniform costs at 1F1B's memory where
   * either fixed preference falls behind (the paper's ZB-1p matches ZB-H1 there, §3.1, Table 3).
   */
  alternate?: boolean;
  /** Fill a wait with a BW only when the BW ends before the wait would (else: whenever waiting). */
  fillOnlyFitting: boolean;
}

export const GREEDY_SWITCHES: readonly GreedySwitches[] = [
  { forwardFirst: false, fillOnlyFitting: false },
  { forwardFirst: false, fillOnlyFitting: true },
  { forwardFirst: true, fillOnlyFitting: false },
  { forwardFirst: true, fillOnlyFitting: true },
  { forwardFirst: false, alternate: true, fillOnlyFitting: false },
  { forwardFirst: false, alternate: true, fillOnlyFitting: true },
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
  const p = startPlacing(s, c, limit);
  let left = 3 * s.stages * s.microbatches;
  while (left > 0) {
    const { rank, at } = earliestRank(p);
    if (rank < 0) return undefined;
    const now = p.free[rank]!;
    const ready = readiestStages(p, rank);
    const next = chooseAction(p, rank, now, ready, sw);
    if ('wait' in next) {
      // Nothing to run yet (or a BW that would overrun the wait): the rank waits for its next input.
      p.free[rank] = Number.isFinite(next.wait) ? Math.max(now, next.wait) : at;
      if (p.free[rank] === now) throw new Error('the heuristic waited without time passing');
      continue;
    }
    place(p, rank, now, ready, next);
    left--;
  }
  return p.orders;
}

/** Where the heuristic stands: what has run on each stage, and what each rank holds and when it is free. */
interface Placing {
  s: OrderShape;
  c: StageCosts;
  limit: readonly number[];
  stagesOf: number[][];
  endF: Float64Array;
  endBI: Float64Array;
  nextF: Int32Array;
  nextBI: Int32Array;
  nextW: Int32Array;
  free: Float64Array;
  held: Float64Array;
  pendingW: number[][];
  /** Per rank, the pass of its last F or BI (−1 before any). */
  lastPass: Int32Array;
  orders: ActionCode[][];
}

function startPlacing(s: OrderShape, c: StageCosts, limit: readonly number[]): Placing {
  const cells = s.stages * s.microbatches;
  const stagesOf: number[][] = Array.from({ length: s.ranks }, () => []);
  s.placement.forEach((r, vs) => {
    stagesOf[r]!.push(vs);
  });
  return {
    s,
    c,
    limit,
    stagesOf,
    endF: new Float64Array(cells).fill(-1),
    endBI: new Float64Array(cells).fill(-1),
    nextF: new Int32Array(s.stages),
    nextBI: new Int32Array(s.stages),
    nextW: new Int32Array(s.stages),
    free: new Float64Array(s.ranks),
    held: new Float64Array(s.ranks),
    pendingW: Array.from({ length: s.ranks }, () => []),
    lastPass: new Int32Array(s.ranks).fill(-1),
    orders: Array.from({ length: s.ranks }, () => []),
  };
}

/** When stage `vs`'s next forward has its input: the previous stage's forward plus the send across ranks. */
function readyF({ s, c, nextF, endF }: Placing, vs: number): number {
  const m = s.microbatches;
  const mb = nextF[vs]!;
  if (mb >= m) return Number.POSITIVE_INFINITY;
  if (vs === 0) return 0;
  const dep = endF[(vs - 1) * m + mb]!;
  if (dep < 0) return Number.POSITIVE_INFINITY;
  return dep + (s.placement[vs - 1] === s.placement[vs] ? 0 : c.sendF[vs - 1]!);
}

/** When stage `vs`'s next BI can start: its own forward done and the next stage's BI sent back. */
function readyBI({ s, c, nextBI, endF, endBI }: Placing, vs: number): number {
  const m = s.microbatches;
  const mb = nextBI[vs]!;
  if (mb >= m) return Number.POSITIVE_INFINITY;
  const own = endF[vs * m + mb]!;
  if (own < 0) return Number.POSITIVE_INFINITY;
  if (vs === s.stages - 1) return own;
  const dep = endBI[(vs + 1) * m + mb]!;
  if (dep < 0) return Number.POSITIVE_INFINITY;
  return Math.max(own, dep + (s.placement[vs + 1] === s.placement[vs] ? 0 : c.sendB[vs + 1]!));
}

/** The rank that can act earliest acts: a rank with a BW to run can always act at once. */
function earliestRank(p: Placing): { rank: number; at: number } {
  const { c, limit, free, held, pendingW, stagesOf } = p;
  let rank = -1;
  let at = Number.POSITIVE_INFINITY;
  for (let r = 0; r < p.s.ranks; r++) {
    let t = pendingW[r]!.length > 0 ? free[r]! : Number.POSITIVE_INFINITY;
    for (const vs of stagesOf[r]!) {
      const fits = held[r]! + c.alloc[vs]! <= limit[r]!;
      t = Math.min(t, Math.max(free[r]!, readyBI(p, vs)), fits ? Math.max(free[r]!, readyF(p, vs)) : t);
    }
    if (t < at) {
      at = t;
      rank = r;
    }
  }
  return { rank, at };
}

/** The rank's stages whose forward (within the memory limit) and BI have their inputs soonest. */
interface Readiest {
  bestF: number;
  bestFReady: number;
  bestB: number;
  bestBReady: number;
}

function readiestStages(p: Placing, rank: number): Readiest {
  let bestF = -1;
  let bestFReady = Number.POSITIVE_INFINITY;
  let bestB = -1;
  let bestBReady = Number.POSITIVE_INFINITY;
  for (const vs of p.stagesOf[rank]!) {
    const f = readyF(p, vs);
    // Later stages first on ties: they bring a microbatch closer to its backward.
    if (
      p.held[rank]! + p.c.alloc[vs]! <= p.limit[rank]! &&
      (f < bestFReady || (f === bestFReady && vs > bestF))
    ) {
      bestF = vs;
      bestFReady = f;
    }
    const b = readyBI(p, vs);
    if (b < bestBReady || (b === bestBReady && vs > bestB)) {
      bestB = vs;
      bestBReady = b;
    }
  }
  return { bestF, bestFReady, bestB, bestBReady };
}

type Action = { pass: number; vs: number };

/** A ready BI before a ready forward (unless forward-first), else a pending BW to fill the wait. */
function chooseAction(
  p: Placing,
  rank: number,
  now: number,
  { bestF, bestFReady, bestB, bestBReady }: Readiest,
  sw: GreedySwitches,
): Action | { wait: number } {
  const fNow = bestF >= 0 && bestFReady <= now;
  const bNow = bestB >= 0 && bestBReady <= now;
  const forwardFirst = sw.alternate ? p.lastPass[rank] === PASS_BI : sw.forwardFirst;
  if (bNow && (!fNow || !forwardFirst)) return { pass: PASS_BI, vs: bestB };
  if (fNow) return { pass: PASS_F, vs: bestF };
  const wait = Math.min(bestFReady, bestBReady);
  const w = p.pendingW[rank]![0];
  const wMs = w === undefined ? 0 : p.c.BW[w]!;
  if (w !== undefined && (!sw.fillOnlyFitting || now + wMs <= wait || wait === Number.POSITIVE_INFINITY))
    return { pass: PASS_BW, vs: w };
  return { wait };
}

/** Runs the action on the rank: its end time, the memory it takes or frees, and its place in the order. */
function place(p: Placing, rank: number, now: number, ready: Readiest, { pass, vs }: Action): void {
  const { c, held, free } = p;
  const m = p.s.microbatches;
  let mb: number;
  if (pass === PASS_F) {
    mb = p.nextF[vs]!++;
    const start = Math.max(now, ready.bestFReady);
    p.endF[vs * m + mb] = start + c.F[vs]!;
    held[rank]! += c.alloc[vs]!;
    free[rank] = start + c.F[vs]!;
  } else if (pass === PASS_BI) {
    mb = p.nextBI[vs]!++;
    const start = Math.max(now, ready.bestBReady);
    p.endBI[vs * m + mb] = start + c.BI[vs]!;
    held[rank]! -= c.freeBI[vs]!;
    free[rank] = start + c.BI[vs]!;
    p.pendingW[rank]!.push(vs);
  } else {
    p.pendingW[rank]!.shift();
    // BWs of a stage run in the order of their BIs.
    mb = p.nextW[vs]!++;
    held[rank]! -= c.freeBW[vs]!;
    free[rank] = now + c.BW[vs]!;
  }
  if (pass !== PASS_BW) p.lastPass[rank] = pass;
  p.orders[rank]!.push(encode(p.s, pass, vs, mb));
}
