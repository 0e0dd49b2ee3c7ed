/**
 * The ideal cluster's pace: nothing is shared, every unit runs at full rate from start to end, so
 * the end the loop queued it at (start + its cost-model time) never moves. Closed forms (1F1B's
 * makespan, bubble ratios) hold exactly on it.
 */
import type { FinishQueue } from './finishQueue.ts';
import type { Flat } from './flat.ts';
import type { Pace } from './pace.ts';

export class IdealPace implements Pace {
  readonly collectiveIsOneJob = false;

  constructor(
    private readonly f: Flat,
    private readonly queue: FinishQueue,
  ) {}

  start(_v: number): void {}

  startCollective(g: number): void {
    const { groupOff, groupUnits, groupDur } = this.f;
    const end = this.queue.now[0]! + groupDur[g]!;
    for (let j = groupOff[g]!; j < groupOff[g + 1]!; j++) {
      const m = groupUnits[j]!;
      this.queue.end[m] = end;
      this.queue.push(m);
    }
  }

  stop(_v: number): void {}
}
