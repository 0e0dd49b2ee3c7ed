import { describe, expect, it } from 'vitest';
import { type OrderShape, type StageCosts, timeOrders } from './orderTiming.ts';
import { GREEDY_SWITCHES, zeroBubbleOrders } from './zeroBubbleGreedy.ts';

/**
 * The Zero Bubble paper's synthetic case (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR
 * 2024, §3.1 and Table 3): F = BI = BW = 1, no p2p time, one stash per microbatch freed by its BW.
 * Its automatic schedule matches ZB-H1 at 1F1B's memory (p stashes) and leaves no bubble inside
 * each rank's span at twice that (ZB-H2). ZB-H1's step is m(F + B) + (p − 1)(F + BI − BW) =
 * 3m + p − 1 here (the closed form packages/sim/src/closedForms.test.ts checks), which is also
 * the least any order can take: the last rank's 3m of work cannot start before p − 1 forwards.
 */
function uniform(p: number, m: number): { s: OrderShape; c: StageCosts } {
  const one = new Array<number>(p).fill(1);
  const zero = new Array<number>(p).fill(0);
  return {
    s: { stages: p, microbatches: m, placement: one.map((_, i) => i), ranks: p },
    c: { F: one, BI: one, BW: one, sendF: zero, sendB: zero, alloc: one, freeBI: zero, freeBW: one },
  };
}

/** The heuristic's fastest order over its switches, and the idle share inside its ranks' spans. */
function heuristic(p: number, m: number, stashes: number): { stepMs: number; spanBubble: number } {
  const { s, c } = uniform(p, m);
  let best = { stepMs: Number.POSITIVE_INFINITY, spanBubble: 1 };
  for (const sw of GREEDY_SWITCHES) {
    const orders = zeroBubbleOrders(s, c, new Array<number>(p).fill(stashes), sw);
    if (!orders) continue;
    const t = timeOrders(s, c, orders);
    if (!t) continue;
    let idle = 0;
    let span = 0;
    for (const order of orders) {
      const first = t.end[order[0]!]! - 1;
      const last = t.end[order[order.length - 1]!]!;
      span += last - first;
      idle += last - first - order.length;
    }
    const spanBubble = idle / span;
    if (t.stepMs < best.stepMs || (t.stepMs === best.stepMs && spanBubble < best.spanBubble))
      best = { stepMs: t.stepMs, spanBubble };
  }
  return best;
}

describe('the Zero Bubble heuristic on the paper’s uniform costs', () => {
  for (const p of [4, 8])
    for (const m of [p, 2 * p, 3 * p]) {
      it(`p=${p}, m=${m}: ZB-H1's step at 1F1B's memory and at twice it${m >= 2 * p ? ', there with no bubble inside the ranks’ spans' : ''}`, () => {
        expect(heuristic(p, m, p).stepMs).toBe(3 * m + p - 1);
        const twice = heuristic(p, m, 2 * p);
        expect(twice.stepMs).toBe(3 * m + p - 1);
        // ZB-H2 fills the spans from m ≥ 2p − 1 microbatches on; with m = p there is too little work.
        if (m >= 2 * p) expect(twice.spanBubble).toBe(0);
      });
    }

  it('refuses a limit below one stash: no order fits', () => {
    const { s, c } = uniform(4, 4);
    expect(zeroBubbleOrders(s, c, [0.5, 0.5, 0.5, 0.5], GREEDY_SWITCHES[0]!)).toBeUndefined();
  });
});
