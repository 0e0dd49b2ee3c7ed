/**
 * `shard_tensor` with `comm_overlap` (Megatron-LM's `--tp-comm-overlap`, Transformer Engine's
 * userbuffers): sequence parallelism's reduce-scatter and all-gather are cut into chunks pipelined
 * with the GEMM that produces or consumes them, so only a chunk waits on the critical path.
 *
 * Each collective becomes two nodes on the region's stream:
 * - the reduce-scatter of a block's output: its hidden part ((c−1)/c of the bytes) runs beside the
 *   producing op, from when that op's inputs are ready; its last chunk (1/c) after the op, as the
 *   reduce-scatter the consumers wait for;
 * - the all-gather into the next block: its first chunk (1/c) before the consuming op, the rest
 *   beside it; what the consuming op produces is only complete (its own reduce-scatter, or its
 *   consumers) once that rest has arrived.
 * A part longer than the op beside it shows as exposed time, as a real overlap would. Approximation:
 * the hidden part runs beside the whole op, where Megatron overlaps only its first or last GEMM
 * (an attention block's core is not a GEMM). Transformer Engine's userbuffers (a static buffer of
 * the gathered tensor per overlapped GEMM) are not counted, as no communication buffer is.
 *
 * Chunk counts from Transformer Engine's example of this overlap
 * (NVIDIA/TransformerEngine examples/pytorch/comm_gemm_overlap/ln_mlp_with_overlap.py): the
 * all-gather by ring exchange in 8 splits at TP8, one per member (so c = n here), the
 * reduce-scatter in 4 splits.
 */

// The chunk counts live with the plan's tensor-parallel facts (ir), which the plan's `chunks` field
// names too (lower/runtimeFields.ts).
export { allGatherChunks, REDUCE_SCATTER_CHUNKS } from '@stagecraft/ir';

/** What the overlap made: per all-gather's hidden part, the ops it must complete before the consumers' outputs are used. */
export interface OverlapWiring {
  /** Producing op → the reduce-scatter chunk after it (the exposed one). */
  scatterOf: Map<number, number>;
  /** Producing op → the reduce-scatter's hidden chunks, run beside it. */
  hiddenScatterOf: Map<number, number>;
  /** All-gather's first chunk → its hidden rest. */
  restOf: Map<number, number>;
  /** Hidden all-gather part → the ops that consume the gathered tensor. */
  gatherRest: Map<number, number[]>;
}
