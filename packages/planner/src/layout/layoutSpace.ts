/**
 * The layouts of a transformer on a cluster: tensor × pipeline (with its chunks) × data degrees
 * that multiply to the cluster's GPUs, expert degree inside the data degree (Megatron-LM's
 * expert-data parallelism), microbatch size and count for the global batch, builder, ZeRO level,
 * recompute and offload. Each layout comes with the first structural rule it breaks, if any, so
 * the search counts it as pruned without building it.
 */
import type { Layout, ZeroLevel } from '../request.ts';

export interface SpaceFacts {
  devices: number;
  gpusPerNode: number;
  layers: number;
  heads: number;
  kvHeads: number;
  /** Routed experts of the MoE layers (absent for a dense model). */
  experts?: number;
  globalBatch: number;
  /** Microbatch sizes to try. */
  microbatchSizes: readonly number[];
}

/** Builders the layout search tries, with the chunks per rank each runs. */
export const LAYOUT_BUILDERS: readonly { builder: string; vp: number }[] = [
  { builder: '1f1b', vp: 1 },
  { builder: 'interleaved-1f1b', vp: 2 },
  { builder: 'zb-h1', vp: 1 },
  { builder: 'zbv', vp: 2 },
  { builder: 'dualpipev', vp: 2 },
];

const ZERO_LEVELS: readonly ZeroLevel[] = [0, 1, 2, 3];

export interface SpaceEntry {
  layout: Layout;
  /** Why it cannot run, before anything is built; undefined for a layout worth building. */
  pruned?: string;
}

const powersOfTwoUpTo = (n: number) => {
  const out: number[] = [];
  for (let x = 1; x <= n; x *= 2) out.push(x);
  return out;
};
const divisors = (n: number) => {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
};

/** Every layout of the grid, in Megatron's nesting order (tp innermost, then ep, dp, pp). */
export function* layoutSpace(f: SpaceFacts): Generator<SpaceEntry> {
  for (const tp of powersOfTwoUpTo(f.gpusPerNode)) {
    for (const pp of divisors(Math.floor(f.devices / tp))) {
      const dp = f.devices / (tp * pp);
      const eps = f.experts ? divisors(dp).filter((e) => e <= f.experts!) : [1];
      for (const { builder, vp } of LAYOUT_BUILDERS) {
        for (const ep of eps) {
          for (const microbatchSize of f.microbatchSizes) {
            const microbatches = f.globalBatch / (dp * microbatchSize);
            for (const zero of ZERO_LEVELS) {
              for (const recompute of [false, true]) {
                for (const offload of [false, true]) {
                  const layout: Layout = {
                    pp,
                    vp,
                    dp,
                    tp,
                    ep,
                    zero,
                    builder,
                    microbatches,
                    microbatchSize,
                    recompute,
                    offload,
                  };
                  const pruned = structuralProblem(f, layout);
                  yield pruned ? { layout, pruned } : { layout };
                }
              }
            }
          }
        }
      }
    }
  }
}

/** The first rule of Megatron-LM's argument checks (or of the builders) the layout breaks. */
function structuralProblem(f: SpaceFacts, l: Layout): string | undefined {
  if (!Number.isInteger(l.dp)) return 'tp × pp does not divide the GPUs';
  if (f.heads % l.tp !== 0 || f.kvHeads % l.tp !== 0) return 'tp does not divide the attention heads';
  if (l.pp * l.vp > f.layers) return 'more pipeline stages than layers';
  if (l.pp === 1 && l.builder !== '1f1b') return 'one stage: the builders all run the same order';
  if (f.experts && f.experts % l.ep !== 0) return 'ep does not divide the experts';
  if (!Number.isInteger(l.microbatches) || l.microbatches < 1)
    return 'dp × microbatch size does not divide the global batch';
  if (l.dp === 1 && l.zero !== 0) return 'ZeRO shards over data replicas: none here';
  if (l.offload && l.recompute) return 'recompute already keeps only the block input';
  return undefined;
}
