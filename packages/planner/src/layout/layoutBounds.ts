/**
 * What a layout must at least cost, known before it is built: a device holds at least the mean
 * of the resident training state over the devices that share it (docs/cost-model.md, "Memory per
 * device": 16-bit weights and gradients, 12 bytes of fp32 optimizer state per parameter, each
 * divided by the data-parallel degree as its ZeRO level says), and a step takes at least the
 * model's FLOPs over the GPUs at their achievable rate. A layout whose memory bound is over the
 * limit is pruned; one whose bounds a front point already beats on both axes is dominated.
 */
import type { Layout } from '../request.ts';

export interface BoundFacts {
  /** 16-bit weight bytes of the blocks expert parallelism does not shard, and of those it does. */
  denseWeightBytes: number;
  expertWeightBytes: number;
  /** FLOPs of F + BI + BW of every block for one sequence. */
  flopsPerSequence: number;
  /** Dense FLOP/s one GPU sustains (peak × achievable fraction). */
  gpuFlopsPerSecond: number;
  devices: number;
}

/** Bytes of resident state per 16-bit weight byte at a ZeRO level over n replicas (W, W, 6W / n as the table says). */
function residentFactor(zero: number, n: number): number {
  if (zero === 0) return 8;
  if (zero === 1) return 2 + 6 / n;
  if (zero === 2) return 1 + 7 / n;
  return 8 / n;
}

export function memoryLowerBound(f: BoundFacts, l: Layout): number {
  const dense = (f.denseWeightBytes / (l.pp * l.tp)) * residentFactor(l.zero, l.dp);
  // Experts are sharded over ep and replicated over the rest of the data-parallel degree.
  const experts = (f.expertWeightBytes / (l.pp * l.tp * l.ep)) * residentFactor(l.zero, l.dp / l.ep);
  return dense + experts;
}

/** Recompute runs each forward twice (Korthikanti et al., arXiv 2205.05198, §4: 4 passes of work instead of 3). */
const RECOMPUTE_WORK = 4 / 3;

export function stepLowerBound(f: BoundFacts, l: Layout): number {
  const sequences = l.microbatches * l.microbatchSize * l.dp;
  const work = f.flopsPerSequence * sequences * (l.recompute ? RECOMPUTE_WORK : 1);
  return (work / (f.devices * f.gpuFlopsPerSecond)) * 1_000;
}

/**
 * Pipeline bubble over the ideal time of each builder at uniform costs with F = BI = BW, from the
 * closed forms (the ones packages/sim/src/closedForms.test.ts checks): the search tries layouts in the order of their step bound
 * times this, so the likely fastest are simulated first. An order only: the simulator decides.
 */
function bubbleOverIdeal(l: Layout): number {
  const p = l.pp;
  const m = l.microbatches;
  if (p === 1) return 0;
  switch (l.builder) {
    case 'interleaved-1f1b':
      return (p - 1) / (l.vp * m);
    case 'zb-h1':
      // (p−1)(F + BI − BW) over m(F + B) = m·3F.
      return (p - 1) / (3 * m);
    case 'zbv':
      // (p−1)F/2 over m·3F.
      return (p - 1) / (6 * m);
    case 'dualpipev':
      // (S/2 − 1)(F&B + B − 3BW) with S = 2p chunks of a third of the work each, F&B = F + B.
      return ((p - 1) * 2) / (3 * 2 * m);
    default:
      return (p - 1) / m;
  }
}

/** Resource knobs that cost time the bound does not see: ZeRO-3 gathers, offload transfers, tp all-reduces. */
const ZERO3_COST = 1.1;
const OFFLOAD_COST = 1.1;
const TP_COST_PER_DOUBLING = 0.05;

/** An estimate of the step to order the search by (never used to prune). */
export function stepEstimate(f: BoundFacts, l: Layout): number {
  let est = stepLowerBound(f, l) * (1 + bubbleOverIdeal(l));
  if (l.zero === 3) est *= ZERO3_COST;
  if (l.offload) est *= OFFLOAD_COST;
  est *= 1 + TP_COST_PER_DOUBLING * Math.log2(l.tp);
  return est;
}
