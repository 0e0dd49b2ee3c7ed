import { FRESH } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { FinishQueue } from './finishQueue.ts';

function drain(q: FinishQueue): [number, number][] {
  const out: [number, number][] = [];
  while (q.size > 0) {
    const v = q.pop();
    out.push([v, q.popped[0]!]);
  }
  return out;
}

describe('the finish queue', () => {
  it('gives units back by end time, equal times in unit order', () => {
    const q = new FinishQueue(6, FRESH);
    const ends = [3, 1, 3, 0, 1, 3];
    for (const v of [5, 2, 0, 4, 1, 3]) {
      q.end[v] = ends[v]!;
      q.push(v);
    }
    expect(drain(q)).toEqual([
      [3, 0],
      [1, 1],
      [4, 1],
      [0, 3],
      [2, 3],
      [5, 3],
    ]);
  });

  it('keeps the entry of a unit queued again, under the end it had then', () => {
    const q = new FinishQueue(2, FRESH);
    q.end[0] = 5;
    q.push(0);
    q.end[0] = 2;
    q.push(0);
    // The loop tells the stale entry by its key no longer being the unit's end.
    expect(drain(q)).toEqual([
      [0, 2],
      [0, 5],
    ]);
  });

  it('grows past its first capacity without losing order', () => {
    const n = 1000;
    const q = new FinishQueue(n, FRESH);
    for (let v = n - 1; v >= 0; v--) {
      q.end[v] = v % 7;
      q.push(v);
    }
    const got = drain(q);
    const want = Array.from({ length: n }, (_, v) => v).sort((a, b) => (a % 7) - (b % 7) || a - b);
    expect(got.map(([v]) => v)).toEqual(want);
  });
});
