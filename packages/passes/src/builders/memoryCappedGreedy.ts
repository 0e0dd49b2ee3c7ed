/**
 * Builds a schedule by list-scheduling unit-time ops (F = BI = BW = 1, free communication) and
 * recording each rank's order, the way the Zero Bubble papers derive their hand schedules from a
 * greedy under a memory limit. Every rank, at every time step, runs the first of:
 *   1. a ready BI (the backward chain is the critical path; the oldest microbatch first),
 *   2. a ready F, if the rank's activation budget allows (deeper stages first: they carry
 *      microbatches the rank already admitted towards their backward),
 *   3. the oldest pending BW (it needs nothing from other ranks and frees memory),
 * and idles otherwise. The cap counts activations held (F run, its BW not yet). A rank admits a
 * microbatch (F of its first stage) only if that leaves as many slots free as the rank has later
 * stages (one, for a V); a later stage's F needs one free slot. That is enough to never
 * deadlock: stages take forwards in microbatch order, so the oldest microbatch still going
 * forward either finds the spare slot free or finds it taken by an older microbatch whose
 * forwards are all done, whose backwards therefore need nothing more, and whose BW frees it.
 * (Reserving every later slot at admission is also safe but holds memory idle for the whole
 * trip down the V and back, which makes V-Min's step about a tenth longer.) The orders come from
 * one valid execution, so running them in order deadlocks under no cost model.
 */
import { action, solo } from './action.ts';
import type { Slot } from './builder.ts';

export interface CappedPipeline {
  /** Rank of each stage; stages are visited 0..S−1 forward and S−1..0 backward. */
  readonly placement: readonly number[];
  readonly microbatches: number;
  /** Chunk activations (F run, its BW not yet) rank r may hold; at least its stage count. */
  readonly stashCap: (rank: number) => number;
}

export function memoryCappedGreedy({ placement, microbatches, stashCap }: CappedPipeline): Slot[][] {
  const stages = placement.length;
  const ranks = Math.max(...placement) + 1;
  const stagesOf = Array.from({ length: ranks }, (_, r) =>
    placement.flatMap((rank, s) => (rank === r ? [s] : [])),
  );
  // Completion times, per stage, of each microbatch's F and BI (Infinity: not yet run).
  const forwardDone = placement.map(() => new Array<number>(microbatches).fill(Infinity));
  const inputGradDone = placement.map(() => new Array<number>(microbatches).fill(Infinity));
  const nextForward = placement.map(() => 0);
  const nextInputGrad = placement.map(() => 0);
  const pendingWeights = stagesOf.map((): { stage: number; mb: number }[] => []);
  const held = stagesOf.map(() => 0);
  const programs = stagesOf.map((): Slot[] => []);
  let remaining = stages * microbatches * 3;

  const forwardReady = (s: number, t: number) => {
    const mb = nextForward[s]!;
    return mb < microbatches && (s === 0 || forwardDone[s - 1]![mb]! <= t);
  };
  const inputGradReady = (s: number, t: number) => {
    const mb = nextInputGrad[s]!;
    return (
      mb < microbatches && forwardDone[s]![mb]! <= t && (s === stages - 1 || inputGradDone[s + 1]![mb]! <= t)
    );
  };

  for (let t = 0; remaining > 0; t++) {
    // Decide every rank's op from the state at time t before applying any, so all ranks see
    // the same instant (an op finishing at t+1 cannot enable another op at t).
    const chosen = stagesOf.map((own, rank) => {
      const grads = own.filter((s) => inputGradReady(s, t));
      if (grads.length > 0) {
        const stage = grads.reduce((a, b) => (nextInputGrad[b]! < nextInputGrad[a]! ? b : a));
        return { pass: 'BI' as const, stage };
      }
      const entry = own[0]!;
      const forwards = own
        .filter((s) => forwardReady(s, t))
        .filter((s) => held[rank]! + (s === entry ? own.length : 1) <= stashCap(rank));
      if (forwards.length > 0) return { pass: 'F' as const, stage: forwards.at(-1)! };
      if (pendingWeights[rank]!.length > 0) return { pass: 'BW' as const, stage: -1 };
      return undefined;
    });
    // State only changes through ops, so a step where every rank idles would repeat forever.
    if (chosen.every((op) => op === undefined)) {
      throw new Error(`memory-capped greedy is stuck at t=${t}: a cap is below one microbatch's stages`);
    }
    chosen.forEach((op, rank) => {
      if (op === undefined) return;
      remaining--;
      if (op.pass === 'BW') {
        const { stage, mb } = pendingWeights[rank]!.shift()!;
        held[rank]!--;
        programs[rank]!.push(solo(action('BW', stage, mb)));
        return;
      }
      const counters = op.pass === 'F' ? nextForward : nextInputGrad;
      const mb = counters[op.stage]!++;
      if (op.pass === 'F') {
        forwardDone[op.stage]![mb] = t + 1;
        held[rank]!++;
      } else {
        inputGradDone[op.stage]![mb] = t + 1;
        pendingWeights[rank]!.push({ stage: op.stage, mb });
      }
      programs[rank]!.push(solo(action(op.pass, op.stage, mb)));
    });
  }
  return programs;
}
