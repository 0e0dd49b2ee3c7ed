/**
 * The ideal cluster's pace: nothing is shared, every unit runs at full rate from start to end, so
 * its end is known when it starts (start + its cost-model time) and never moves. Closed forms
 * (1F1B's makespan, bubble ratios) hold exactly on it.
 */
import type { FinishQueue } from './finishQueue.ts';
import type { Flat } from './flat.ts';
import type { Pace } from './pace.ts';

export class IdealPace implements Pace {
  readonly collectiveIsOneJob = false;
  // The arrays themselves, not the objects holding them: `start` runs once per instruction.
  private readonly now: Float64Array;
  private readonly end: Float64Array;
  private readonly dur: Float64Array;

  constructor(
    private readonly f: Flat,
    private readonly queue: FinishQueue,
  ) {
    this.now = queue.now;
    this.end = queue.end;
    this.dur = f.dur;
  }

  start(v: number): void {
    this.end[v] = this.now[0]! + this.dur[v]!;
    this.queue.push(v);
  }

  startCollective(g: number): void {
    const { groupOff, groupUnits, groupDur } = this.f;
    const end = this.now[0]! + groupDur[g]!;
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
      const m = groupUnits[j]!;
      this.end[m] = end;
      this.queue.push(m);
    }
  }

  stop(_v: number): void {}
}
