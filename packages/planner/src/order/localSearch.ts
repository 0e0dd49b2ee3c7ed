/**
 * Local search over per-rank orders: move one action of one rank a few places earlier or later,
 * keep the move when the timed step does not get worse (and now and then when it does, less
 * often as the search goes on: simulated annealing), every rank's stash within its limit, and
 * remember the best orders seen. Deterministic for a seed: the moves come from a seeded generator
 * and the search stops after a fixed number of moves, or earlier at its deadline.
 */
import { type ActionCode, type OrderShape, type StageCosts, stashPeak, timeOrders } from './orderTiming.ts';

export interface LocalSearchOptions {
  seed: number;
  /** Moves tried at most. */
  moves: number;
  /** Asked every few hundred moves: true stops the search. */
  stop(): boolean;
}

export interface LocalSearchResult {
  orders: ActionCode[][];
  stepMs: number;
  movesTried: number;
  improvements: number;
}

/** Farthest a move takes an action from its place, in actions of its rank. */
const REACH = 6;

export function improveOrders(
  s: OrderShape,
  c: StageCosts,
  limit: readonly number[],
  start: readonly (readonly ActionCode[])[],
  options: LocalSearchOptions,
): LocalSearchResult {
  const current = start.map((o) => [...o]);
  const timed = timeOrders(s, c, current);
  if (!timed) throw new Error('the local search was started from orders that deadlock');
  let currentMs = timed.stepMs;
  let best = current.map((o) => [...o]);
  let bestMs = currentMs;
  const random = seededRandom(options.seed);
  const total = current.reduce((n, o) => n + o.length, 0);
  let improvements = 0;
  let tried = 0;
  const startTemperature = currentMs * 0.01;
  for (; tried < options.moves; tried++) {
    if ((tried & 255) === 0 && options.stop()) break;
    // A rank with probability proportional to its actions, then one of them.
    let k = Math.floor(random() * total);
    let r = 0;
    while (k >= current[r]!.length) k -= current[r++]!.length;
    const order = current[r]!;
    const shift = 1 + Math.floor(random() * REACH);
    const to = random() < 0.5 ? k - shift : k + shift;
    if (to < 0 || to >= order.length) continue;
    const [a] = order.splice(k, 1);
    order.splice(to, 0, a!);
    const undo = () => {
      order.splice(to, 1);
      order.splice(k, 0, a!);
    };
    if (stashPeak(s, c, order) > limit[r]!) {
      undo();
      continue;
    }
    const t = timeOrders(s, c, current);
    if (!t) {
      undo();
      continue;
    }
    const temperature = startTemperature * (1 - tried / options.moves);
    const worse = t.stepMs - currentMs;
    if (worse <= 1e-9 || (temperature > 0 && random() < Math.exp(-worse / temperature))) {
      currentMs = t.stepMs;
      if (currentMs < bestMs - 1e-9) {
        bestMs = currentMs;
        best = current.map((o) => [...o]);
        improvements++;
      }
    } else undo();
  }
  return { orders: best, stepMs: bestMs, movesTried: tried, improvements };
}

/** mulberry32 (Tommy Ettinger's public-domain 32-bit generator): small, fast, and the same everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
