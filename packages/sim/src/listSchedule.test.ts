import { FRESH, type Plan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compute, device, plan, recv, send } from '../test/testPlans.ts';
import { resolveCluster } from './costModel.ts';
import { flatten } from './flat.ts';
import { listSchedule } from './listSchedule.ts';
import { simulate } from './simulate.ts';

function sweep(p: Plan) {
  const cost = resolveCluster(p.cluster);
  if (!cost.ok) throw new Error('cluster refused');
  const flat = flatten(p, cost.cost);
  if (!flat.ok) throw new Error('plan refused');
  return listSchedule(flat.flat, FRESH);
}

describe('the stream sweep', () => {
  it('times a RECV posted before its SEND ran: the next unit starts at the post, the RECV ends with the SEND', () => {
    const p = plan([
      device(0, { s0: [compute('F', 'a', 2), send('s', 1, 't')] }),
      device(1, { s0: [recv('r', 0, 't'), compute('F', 'b', 1), compute('B', 'c', 1, { waits: ['r'] })] }),
    ]);
    const run = sweep(p)!;
    expect(run).toBeDefined();
    // Units are laid out device by device, stream by stream: a, s | r, b, c.
    expect(Array.from(run.start)).toEqual([0, 2, 0, 0, 2]);
    expect(Array.from(run.end)).toEqual([2, 2, 2, 1, 3]);
  });

  it('leaves a device that allocates on two streams to the event loop, whose result simulate still gives', () => {
    const p = plan([
      device(0, {
        s0: [compute('F', 'a', 1, { alloc: 4, free: 4 })],
        s1: [compute('F', 'b', 1, { alloc: 2, free: 2 })],
      }),
    ]);
    expect(sweep(p)).toBeUndefined();
    const r = simulate(p, { keepTimeline: false });
    if (!r.ok) throw new Error('simulation failed');
    // Both run at once: the peak holds both allocations, which one stream's replay could not see.
    expect(r.sim.devices[0]!.peakMemoryBytes).toBe(6);
  });

  it('stops on a wait cycle, and simulate reports the deadlock the event loop finds', () => {
    const p = plan([
      device(0, {
        s0: [compute('F', 'a', 1, { waits: ['b'] })],
        s1: [compute('F', 'b', 1, { waits: ['a'] })],
      }),
    ]);
    expect(sweep(p)).toBeUndefined();
    const r = simulate(p, { keepTimeline: false });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.deadlock?.cycle.length).toBe(2);
  });
});
