import { FRESH } from '@stagecraft/ir';
import fc from 'fast-check';
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

  it('finishes a unit queued earlier for this time before a higher one queued now for it', () => {
    const q = new FinishQueue(3, FRESH);
    q.end[0] = 1;
    q.end[2] = 1;
    q.push(2);
    q.push(0);
    q.now[0] = 1;
    q.end[1] = 1;
    q.push(1);
    expect(drain(q)).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });

  it('takes entries in (end, unit) order whatever mix of instant and later ends a run queues', () => {
    // A run's queue: units queued now or later, entries taken, the clock moved to each one taken
    // (or not, as a pace may queue a unit again at an end it already had).
    type Op = { push: number; after: number } | { pop: true; advance: boolean };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ push: fc.nat(5), after: fc.constantFrom(0, 0, 0.5, 1) }),
      fc.record({ pop: fc.constant(true as const), advance: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const q = new FinishQueue(20, FRESH);
        const reference: [number, number][] = [];
        const taken: [number, number][] = [];
        const want: [number, number][] = [];
        const take = (advance: boolean) => {
          const v = q.pop();
          taken.push([v, q.popped[0]!]);
          reference.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
          want.push(reference.shift()!);
          if (advance) q.now[0] = q.popped[0]!;
        };
        for (const o of ops) {
          if ('push' in o) {
            q.end[o.push] = q.now[0]! + o.after;
            q.push(o.push);
            reference.push([o.push, q.end[o.push]!]);
          } else if (q.size > 0) take(o.advance);
        }
        while (q.size > 0) take(true);
        expect(taken).toEqual(want);
      }),
      { numRuns: 1000 },
    );
  });
});
