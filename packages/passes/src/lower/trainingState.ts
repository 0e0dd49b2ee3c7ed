/**
 * What a device holds all step besides activations: weights, gradients and optimizer states of
 * the blocks its group runs, after ZeRO sharding over the group's data-parallel degree n.
 * Mixed-precision Adam: weights and gradients in the model's 16-bit type (the block's
 * paramBytes each), fp32 master weights + first and second moments = 12 bytes per parameter,
 * i.e. 6 × the 16-bit weight bytes.
 *   ZeRO-0: W + G + 6W · ZeRO-1: W + G + 6W/n · ZeRO-2: W + G/n + 6W/n · ZeRO-3: (W + G + 6W)/n
 * (ZeRO-3's gathered parameters are transient and counted on the ops that use them.)
 * Parameters a block shares with another block the group also holds (`sharedParams`) are held
 * once, by the other block.
 */
import {
  type Dag,
  type Model,
  OP_B,
  OP_BI,
  OP_BW,
  OP_F,
  OP_UPD,
  tableOf,
  tensorParallelDegree,
} from '@stagecraft/ir';

export const OPTIMIZER_BYTES_PER_WEIGHT_BYTE = 6;

export interface TrainingState {
  params: number;
  grads: number;
  optimizer: number;
}

export function trainingState(dag: Dag, group: number, blocks: Iterable<number>): TrainingState {
  const n = dag.groups[group]!.length;
  const zeroOf = new Map<number, number>();
  // Over mesh axes, ZeRO shards over the sub-group a gradient is reduced over, not the group.
  const degreeOf = new Map<number, number>();
  for (const r of dag.dataParallel ?? [])
    if (r.group === group)
      for (const b of r.blocks) {
        zeroOf.set(b, r.zero);
        degreeOf.set(b, r.degree ?? n);
      }
  const s: TrainingState = { params: 0, grads: 0, optimizer: 0 };
  const held = new Set(blocks);
  for (const b of held) {
    const info = dag.blocks[b]!;
    const shared =
      info.sharedParams !== undefined && held.has(info.sharedParams.block) ? info.sharedParams.bytes : 0;
    const w = info.paramBytes - shared;
    const zero = zeroOf.get(b);
    const dp = zero === undefined ? 1 : degreeOf.get(b)!;
    const z = zero ?? 0;
    s.params += z >= 3 ? w / dp : w;
    s.grads += z >= 2 ? w / dp : w;
    s.optimizer += (OPTIMIZER_BYTES_PER_WEIGHT_BYTE * w) / (z >= 1 ? dp : 1);
  }
  return s;
}

/**
 * What the compute ops of a DAG add up to, read in one pass over its nodes:
 * - `held`: per group, the blocks its compute ops belong to, in order of first appearance;
 * - the tokens one step trains on and its model FLOPs cluster-wide: every forward of the first
 *   block is one microbatch of `tokensPerMicrobatch` tokens per data-parallel member (members of
 *   a tensor-parallel group share their tokens); FLOPs sum F, BI and BW (B = BI + BW) of every op
 *   times the members running it, recomputation excluded, as MFU counts them.
 */
export function computeCensus(
  dag: Dag,
  tokensPerMicrobatch: number | undefined,
): { held: number[][]; tokens?: number; flops?: number } {
  // Members of a group that share their tokens: the whole group, or a sub-group along mesh axes.
  const tp = new Map<number, number>();
  for (const r of dag.tensorParallel ?? []) tp.set(r.group, tensorParallelDegree(dag, r));
  const B = dag.blocks.length;
  const held: number[][] = dag.groups.map(() => []);
  const mark = new Uint8Array(dag.groups.length * B);
  let tokens = 0;
  let flops = 0;
  let haveFlops = false;
  const t = tableOf(dag);
  for (let i = 0; i < t.length; i++) {
    const op = t.op[i]!;
    const block = t.block[i]!;
    const group = t.group[i]!;
    if (op > OP_UPD || block < 0 || group < 0) continue;
    const k = group * B + block;
    if (mark[k] === 0) {
      mark[k] = 1;
      held[group]!.push(block);
    }
    const size = dag.groups[group]!.length;
    if (op === OP_F && block === 0) tokens += size / (tp.get(group) ?? 1);
    const f = dag.blocks[block]!.flops;
    if (!f) continue;
    haveFlops = true;
    const per = op === OP_F ? f.F : op === OP_B ? f.BI + f.BW : op === OP_BI ? f.BI : op === OP_BW ? f.BW : 0;
    flops += per * size;
  }
  const out: { held: number[][]; tokens?: number; flops?: number } = { held };
  if (tokensPerMicrobatch !== undefined) out.tokens = tokens * tokensPerMicrobatch;
  if (haveFlops) out.flops = flops;
  return out;
}

/**
 * Tokens in one microbatch of one data-parallel rank, when known. A transformer's blocks carry
 * them (`tokensPerMicrobatch` of its resolved config, preset included); a synthetic chain of
 * blocks may state them; synthetic stages never do.
 */
export function microbatchTokens(dag: Dag, model: Model): number | undefined {
  return dag.blocks[0]?.tokens ?? ('blocks' in model ? model.tokensPerMicrobatch : undefined);
}
