/**
 * A small list scheduler for tests: runs each rank's program strictly in order, starting a slot
 * as soon as its rank is free and every cross-stage dependency has finished. With uniform costs
 * and free communication it is the timeline the published closed forms describe, so builders can
 * be checked against them without the simulator package.
 */
import type { Action, BuiltSchedule, Slot } from '../../src/builders/builder.ts';

export interface Costs {
  readonly F: number;
  readonly BI: number;
  readonly BW: number;
  /** Fused backward; BI+BW unless given. */
  readonly B?: number;
  /** An overlapped pair; the sum of its two actions unless given. */
  readonly FandB?: number;
}

export const UNIT_COSTS: Costs = { F: 1, BI: 1, BW: 1 };

export interface TimedSlot {
  readonly slot: Slot;
  readonly start: number;
  readonly end: number;
}

export interface RankSpan {
  readonly start: number;
  readonly end: number;
  readonly busy: number;
  /** Idle time between the rank's first and last op. */
  readonly spanBubble: number;
}

export interface UnitCostRun {
  readonly makespan: number;
  readonly ranks: readonly RankSpan[];
  readonly timelines: readonly (readonly TimedSlot[])[];
}

export class Deadlock extends Error {}

export function stageCount(schedule: BuiltSchedule): number {
  const { placement } = schedule;
  return Array.isArray(placement) ? placement.length : (placement as { down: readonly number[] }).down.length;
}

/** The events an action waits for and the one it provides, as keys. */
function dependencies(a: Action, stages: number): string[] {
  const at = (stage: number, event: string) => `${a.dir ?? 0}|${stage}|${a.mb}|${event}`;
  switch (a.pass) {
    case 'F':
      return a.stage > 0 ? [at(a.stage - 1, 'F')] : [];
    case 'B':
    case 'BI':
      // The loss turns the last stage's forward into its own backward input.
      return a.stage < stages - 1 ? [at(a.stage, 'F'), at(a.stage + 1, 'grad')] : [at(a.stage, 'F')];
    case 'BW':
      return [at(a.stage, 'BI')];
  }
}

function provides(a: Action): string[] {
  const at = (event: string) => `${a.dir ?? 0}|${a.stage}|${a.mb}|${event}`;
  switch (a.pass) {
    case 'F':
      return [at('F')];
    case 'B':
      return [at('grad')];
    case 'BI':
      return [at('grad'), at('BI')];
    case 'BW':
      return [at('BW')];
  }
}

function slotCost(slot: Slot, costs: Costs): number {
  const cost = (a: Action) => (a.pass === 'B' ? (costs.B ?? costs.BI + costs.BW) : costs[a.pass]);
  if (slot.length === 2 && costs.FandB !== undefined) return costs.FandB;
  return slot.reduce((sum, a) => sum + cost(a), 0);
}

export function runUnitCost(schedule: BuiltSchedule, costs: Costs = UNIT_COSTS): UnitCostRun {
  const stages = stageCount(schedule);
  const finished = new Map<string, number>();
  const programs = schedule.programs;
  const next = programs.map(() => 0);
  const free = programs.map(() => 0);
  const timelines: TimedSlot[][] = programs.map(() => []);
  let remaining = programs.reduce((n, p) => n + p.length, 0);

  while (remaining > 0) {
    let progressed = false;
    programs.forEach((program, rank) => {
      for (;;) {
        const slot = program[next[rank]!];
        if (slot === undefined) return;
        const waits = slot.flatMap((a) => dependencies(a, stages));
        if (!waits.every((key) => finished.has(key))) return;
        const start = Math.max(free[rank]!, ...waits.map((key) => finished.get(key)!));
        const end = start + slotCost(slot, costs);
        for (const key of slot.flatMap(provides)) finished.set(key, end);
        timelines[rank]!.push({ slot, start, end });
        free[rank] = end;
        next[rank]!++;
        remaining--;
        progressed = true;
      }
    });
    if (!progressed) {
      const stuck = programs
        .map((program, rank) => ({ rank, slot: program[next[rank]!] }))
        .filter((s) => s.slot !== undefined)
        .map((s) => `rank ${s.rank} waits at ${JSON.stringify(s.slot)}`);
      throw new Deadlock(`deadlock: ${stuck.join('; ')}`);
    }
  }

  const ranks = timelines.map((timeline) => {
    const start = timeline[0]?.start ?? 0;
    const end = timeline.at(-1)?.end ?? 0;
    const busy = timeline.reduce((sum, t) => sum + (t.end - t.start), 0);
    return { start, end, busy, spanBubble: end - start - busy };
  });
  return { makespan: Math.max(0, ...ranks.map((r) => r.end)), ranks, timelines };
}
