import { describe, expect, it } from 'vitest';
import { compute, device, plan, recv, send } from '../test/testPlans.ts';
import { simulate } from './simulate.ts';
import type { Simulation, SimulationResult } from './types.ts';

function ok(r: SimulationResult): Simulation {
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.sim;
}

const span = (sim: Simulation, dev: number, id: string) => {
  const e = sim.timeline?.find((x) => x.device === dev && x.id === id);
  if (!e) throw new Error(`no event ${id}`);
  return [e.startMs, e.endMs];
};

describe("the cluster's dispatch time", () => {
  it('starts each op its dispatch time after it is ready, the op itself as long as before', () => {
    const chain = [
      device(0, { c: [compute('F', 'A', 2), send('s', 1, 'x', { waits: ['A'] })] }),
      device(1, { c: [recv('r', 0, 'x'), compute('F', 'B', 3, { waits: ['r'] })] }),
    ];
    const sim = ok(simulate(plan(chain, { cluster: { kind: 'ideal', devices: 2, dispatchMs: 0.5 } })));
    expect(span(sim, 0, 'A')).toEqual([0.5, 2.5]);
    // The SEND is issued after A, its transfer free on the ideal cluster: the data arrives at 3.
    expect(span(sim, 0, 's')).toEqual([3, 3]);
    expect(span(sim, 1, 'r')[1]).toBe(3);
    expect(span(sim, 1, 'B')).toEqual([3.5, 6.5]);
    expect(sim.makespanMs).toBe(6.5);
    // Dispatch is the runtime's time, not the op's work: busy stays the ops' own.
    expect(sim.devices.map((d) => d.busyMs)).toEqual([2, 3]);
  });

  it('is 0 when a cluster does not give it, so a design without it means what it always meant', () => {
    const one = [device(0, { c: [compute('F', 'A', 2), compute('F', 'B', 1)] })];
    const without = ok(simulate(plan(one)));
    const zero = ok(simulate(plan(one, { cluster: { kind: 'ideal', devices: 1, dispatchMs: 0 } })));
    expect(without.timeline).toEqual(zero.timeline);
    expect(without.makespanMs).toBe(3);
  });

  it('is paid by every op of a real cluster too, a preset included', () => {
    const one = [device(0, { c: [compute('F', 'A', 2), compute('F', 'B', 1)] })];
    const sim = ok(
      simulate(plan(one, { cluster: { preset: 'dgx-h100', nodes: 1, dispatchMs: 0.25 } as never })),
    );
    expect(span(sim, 0, 'B')).toEqual([2.5, 3.5]);
  });
});
