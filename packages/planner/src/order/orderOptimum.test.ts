/**
 * The order search against every valid order of small pipelines (p ≤ 3, m ≤ 4), enumerated here
 * independently of the search: each rank runs its microbatches' F, BI and BW, each pass in
 * microbatch order (as every builder does), BI after F and BW after BI, within the stash limit.
 */
import type { Design } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { searchOrder } from '../index.ts';
import { ACTIVATION_BYTES, PARAM_BYTES, unevenPipeline } from '../syntheticPipelines.ts';

const F = [1, 1.4, 0.7];
const BI = [1.3, 0.9, 1.5];
const BW = [0.5, 1.1, 0.6];
const LATENCY = 0.25;

type Op = { pass: 'F' | 'BI' | 'BW'; mb: number };

/** Every order of one rank's 3m ops with at most `cap` microbatches stashed (F run, BW not yet). */
function rankOrders(m: number, cap: number): Op[][] {
  const out: Op[][] = [];
  const walk = (f: number, bi: number, bw: number, seq: Op[]) => {
    if (bw === m) return void out.push([...seq]);
    if (f < m && f - bw < cap) walk(f + 1, bi, bw, [...seq, { pass: 'F', mb: f }]);
    if (bi < f) walk(f, bi + 1, bw, [...seq, { pass: 'BI', mb: bi }]);
    if (bw < bi) walk(f, bi, bw + 1, [...seq, { pass: 'BW', mb: bw }]);
  };
  walk(0, 0, 0, []);
  return out;
}

/** Step of per-rank orders (rank r runs stage r), or Infinity when they wait on each other forever. */
function step(p: number, m: number, orders: Op[][]): number {
  const end = { F: [] as number[][], BI: [] as number[][], BW: [] as number[][] };
  for (const k of ['F', 'BI', 'BW'] as const) end[k] = Array.from({ length: p }, () => new Array(m).fill(-1));
  const next = new Array(p).fill(0);
  const free = new Array(p).fill(0);
  let moved = true;
  while (moved) {
    moved = false;
    for (let r = 0; r < p; r++) {
      for (; next[r] < orders[r]!.length; next[r]++) {
        const { pass, mb } = orders[r]![next[r]]!;
        let ready = 0;
        if (pass === 'F' && r > 0) {
          if (end.F[r - 1]![mb]! < 0) break;
          ready = end.F[r - 1]![mb]! + LATENCY;
        } else if (pass === 'BI') {
          if (end.F[r]![mb]! < 0 || (r < p - 1 && end.BI[r + 1]![mb]! < 0)) break;
          ready = Math.max(end.F[r]![mb]!, r < p - 1 ? end.BI[r + 1]![mb]! + LATENCY : 0);
        } else if (pass === 'BW') ready = end.BI[r]![mb]!;
        const cost = (pass === 'F' ? F : pass === 'BI' ? BI : BW)[r % 3]!;
        free[r] = Math.max(free[r], ready) + cost;
        end[pass][r]![mb] = free[r];
        moved = true;
      }
    }
  }
  return next.every((n, r) => n === orders[r]!.length) ? Math.max(...free) : Number.POSITIVE_INFINITY;
}

function optimum(p: number, m: number, cap: number): number {
  const each = rankOrders(m, cap);
  let best = Number.POSITIVE_INFINITY;
  const pick: Op[][] = [];
  const walk = (r: number) => {
    if (r === p) return void (best = Math.min(best, step(p, m, pick)));
    for (const o of each) {
      pick[r] = o;
      walk(r + 1);
    }
  };
  walk(0);
  return best;
}

const design = (p: number, m: number): Design =>
  unevenPipeline({ ranks: p, microbatches: m, F, BI, BW, p2pLatencyMs: LATENCY });

describe('the order search finds the optimum of every small pipeline', () => {
  const cases: [p: number, m: number, times1F1B: number][] = [
    [2, 2, 1],
    [2, 3, 1],
    [2, 4, 1],
    [2, 4, 2],
    [3, 2, 1],
    [3, 3, 1],
    [3, 3, 2],
  ];
  for (const [p, m, k] of cases)
    it(`p=${p}, m=${m}, ${k}× 1F1B's stash: the fastest of all valid orders`, () => {
      // 1F1B stashes p microbatches on its first rank: the limit is k·p on every rank.
      const best = optimum(p, m, k * p);
      const r = searchOrder(design(p, m), { memoryLimit: { times1F1B: k }, seed: 1, budgetMs: 60_000 });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.best.fits).toBe(true);
      expect(r.stepMs).toBeCloseTo(best, 9);
    });

  it('p=3, m=4 with room for two microbatches per device: the fastest of all valid orders', () => {
    const best = optimum(3, 4, 2);
    // Resident state is 8 bytes per weight byte without ZeRO (docs/cost-model.md), then two stashes.
    const limit = 8 * PARAM_BYTES + 2 * ACTIVATION_BYTES;
    const r = searchOrder(design(3, 4), { memoryLimit: { bytes: limit }, seed: 1, budgetMs: 60_000 });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(Math.max(...r.peakMemoryBytes)).toBeLessThanOrEqual(limit);
    expect(r.stepMs).toBeCloseTo(best, 9);
  });
});
