/**
 * Structural facts every built schedule must satisfy, as a list of violations (empty = sound):
 * each rank runs only its own stages; every (stage, microbatch) has one F and either one fused B
 * or one BI and one BW; on a rank F precedes the backward and BI precedes BW; a slot is one
 * action or an overlapped forward + backward pair.
 */
import type { Action, BuiltSchedule, Slot } from '../../src/builders/builder.ts';

const key = (a: Pick<Action, 'stage' | 'mb' | 'dir'>) => `${a.dir ?? 0}|${a.stage}|${a.mb}`;

function rankOf(schedule: BuiltSchedule, a: Action): number | undefined {
  const { placement } = schedule;
  if (Array.isArray(placement)) return (placement as readonly number[])[a.stage];
  const { down, up } = placement as { down: readonly number[]; up: readonly number[] };
  return (a.dir === 1 ? up : down)[a.stage];
}

function stagesOf(schedule: BuiltSchedule): { stage: number; dir?: 0 | 1; rank: number }[] {
  const { placement } = schedule;
  if (Array.isArray(placement))
    return (placement as readonly number[]).map((rank, stage) => ({ stage, rank }));
  const { down, up } = placement as { down: readonly number[]; up: readonly number[] };
  return [
    ...down.map((rank, stage) => ({ stage, dir: 0 as const, rank })),
    ...up.map((rank, stage) => ({ stage, dir: 1 as const, rank })),
  ];
}

export function programViolations(schedule: BuiltSchedule, microbatchesPerStage: number): string[] {
  const violations: string[] = [];
  const seen = new Map<string, string[]>();
  schedule.programs.forEach((program, rank) => {
    program.forEach((slot: Slot, i) => {
      if (slot.length === 2) {
        const passes = slot.map((a) => a.pass).join('+');
        if (passes !== 'F+B' && passes !== 'F+BI') violations.push(`rank ${rank} slot ${i}: pair ${passes}`);
        if (key(slot[0]!) === key(slot[1]!))
          violations.push(`rank ${rank} slot ${i}: pair on one microbatch`);
      } else if (slot.length !== 1) {
        violations.push(`rank ${rank} slot ${i}: ${slot.length} actions`);
      }
      for (const a of slot) {
        if (rankOf(schedule, a) !== rank)
          violations.push(`rank ${rank} runs ${JSON.stringify(a)} of another rank`);
        const passes = seen.get(key(a)) ?? [];
        const before = (pass: string) => passes.includes(pass);
        if (a.pass !== 'F' && !before('F'))
          violations.push(`rank ${rank}: ${JSON.stringify(a)} before its F`);
        if (a.pass === 'BW' && !before('BI'))
          violations.push(`rank ${rank}: ${JSON.stringify(a)} before its BI`);
        passes.push(a.pass);
        seen.set(key(a), passes);
      }
    });
  });
  for (const { stage, dir } of stagesOf(schedule)) {
    for (let mb = 0; mb < microbatchesPerStage; mb++) {
      const passes = (seen.get(key({ stage, mb, dir })) ?? []).toSorted().join(',');
      if (passes !== 'B,F' && passes !== 'BI,BW,F') {
        violations.push(`stage ${stage}${dir === undefined ? '' : ` dir ${dir}`} mb ${mb} runs [${passes}]`);
      }
      seen.delete(key({ stage, mb, dir }));
    }
  }
  for (const extra of seen.keys()) violations.push(`unexpected (dir|stage|mb) ${extra}`);
  return violations;
}

/**
 * Most activations a rank holds at once, in chunk units: F stashes, B or BW frees. Within an
 * overlapped pair the forward's activation exists before the backward frees its own.
 */
export function peakStash(program: readonly Slot[]): number {
  let held = 0;
  let peak = 0;
  for (const slot of program) {
    for (const a of slot) {
      if (a.pass === 'F') held++;
      else if (a.pass === 'B' || a.pass === 'BW') held--;
      peak = Math.max(peak, held);
    }
  }
  return peak;
}
