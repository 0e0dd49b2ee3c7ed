/**
 * Stage → rank placements (schedules.md, "Stage → rank placement"). Each returns, per virtual
 * stage, the rank that runs it.
 */

/** Stage s on rank s: one stage per rank (GPipe, 1F1B, ZB-H1/H2). */
export function linearPlacement(ranks: number): number[] {
  return Array.from({ length: ranks }, (_, s) => s);
}

/** Stage s on rank s mod p: chunks loop round the ranks (interleaved 1F1B, looped BFS). */
export function loopPlacement(ranks: number, chunks: number): number[] {
  return Array.from({ length: ranks * chunks }, (_, s) => s % ranks);
}

/**
 * Stages 0..p−1 down the ranks, then p..2p−1 back up (ZB-V, V-Half, V-Min, DualPipeV): rank r
 * holds stages r and 2p−1−r, so the first and last stage share rank 0 and the loss turns
 * around on it without a hop.
 */
export function vPlacement(ranks: number): number[] {
  return Array.from({ length: 2 * ranks }, (_, s) => (s < ranks ? s : 2 * ranks - 1 - s));
}

/** The two chunks of a V-placed rank: chunk 0 on the way down, chunk 1 on the way back. */
export function vStagesOfRank(ranks: number, rank: number): { chunk0: number; chunk1: number } {
  return { chunk0: rank, chunk1: 2 * ranks - 1 - rank };
}

/**
 * DualPipe's two model copies: the down pipeline puts stage s on rank s, the up pipeline puts
 * stage s on rank p−1−s, so rank r holds down-stage r and up-stage p−1−r.
 */
export function dualPipePlacement(ranks: number): { down: number[]; up: number[] } {
  return {
    down: Array.from({ length: ranks }, (_, s) => s),
    up: Array.from({ length: ranks }, (_, s) => ranks - 1 - s),
  };
}
