/**
 * A plan rule is checked in one place (ir's plan layout) with one message: validation and the
 * simulator name a broken reference alike. The rules only a runtime needs (SEND/RECV and
 * collective order) are validation's: the simulator runs such plans (into a deadlock, for
 * collectives).
 */
import { type Plan, validatePlan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { collective, compute, device, plan, recv, send } from '../test/testPlans.ts';
import { simulate } from './simulate.ts';

function simulationErrors(p: Plan) {
  const r = simulate(p);
  if (r.ok) throw new Error('simulated');
  return r.errors;
}

const BROKEN: [string, Plan][] = [
  [
    'a wait for an id the device never runs',
    plan([device(0, { c: [compute('F', 'F', 1, { waits: ['nope'] })] })]),
  ],
  [
    'a RECV without its SEND and a SEND without its RECV',
    plan([device(0, { c: [send('s', 1, 'x')] }), device(1, { c: [recv('r', 0, 'y')] })]),
  ],
  ['a peer device not in the plan', plan([device(0, { c: [send('s', 7, 'x')] })])],
  [
    'a collective one of its devices never issues',
    plan([
      device(0, { c: [collective('ALL_REDUCE', 'a', 'k', [0, 1], 1)] }),
      device(1, { c: [compute('F', 'F', 1)] }),
    ]),
  ],
  [
    'members of a collective that disagree on its size',
    plan([
      device(0, { c: [collective('ALL_REDUCE', 'a', 'k', [0, 1], 1)] }),
      device(1, { c: [collective('ALL_REDUCE', 'a', 'k', [0, 1], 2)] }),
    ]),
  ],
  [
    'a collective on a device it does not list',
    plan([
      device(0, { c: [collective('ALL_REDUCE', 'a', 'k', [0, 1], 1)] }),
      device(1, { c: [collective('ALL_REDUCE', 'a', 'k', [0], 1)] }),
    ]),
  ],
  ['a device listed twice', plan([device(0, { c: [] }), device(0, { c: [] })])],
];

describe('a broken reference in a plan', () => {
  it.each(BROKEN)('%s: validation and the simulator name it with the same path and text', (_, p) => {
    const errors = simulationErrors(p);
    expect(errors.length).toBeGreaterThan(0);
    expect(validatePlan(p, { maxIssues: 100 })).toEqual(errors);
  });

  it('an unknown wait is named at the wait, by the instruction and the device', () => {
    const [, p] = BROKEN[0]!;
    expect(validatePlan(p)).toEqual([
      {
        path: 'devices[0].streams[0].instructions[0].waits[0]',
        message: 'F waits for nope, which device 0 never runs',
      },
    ]);
  });
});

describe('an order only a runtime needs', () => {
  it('SEND/RECV out of order between two devices simulate, paired by transfer, and fail validation', () => {
    const p = plan([
      device(0, { c: [send('s1', 1, 'x', { bytes: 1 }), send('s2', 1, 'y', { bytes: 1 })] }),
      device(1, { c: [recv('r2', 0, 'y'), recv('r1', 0, 'x')] }),
    ]);
    expect(simulate(p).ok).toBe(true);
    expect(validatePlan(p)[0]).toEqual({
      path: 'devices[1].streams[0].instructions[0]',
      message:
        "r2 is receive #1 from device 0 but that device's send #1 is x: SEND/RECV between two devices must match in order",
    });
  });

  it('collectives issued in different orders deadlock the simulation and fail validation', () => {
    const p = plan([
      device(0, {
        c: [collective('ALL_REDUCE', 'x', 'X', [0, 1], 1), collective('ALL_REDUCE', 'y', 'Y', [0, 1], 1)],
      }),
      device(1, {
        c: [collective('ALL_REDUCE', 'y', 'Y', [0, 1], 1), collective('ALL_REDUCE', 'x', 'X', [0, 1], 1)],
      }),
    ]);
    const r = simulate(p);
    expect(!r.ok && r.deadlock !== undefined).toBe(true);
    expect(validatePlan(p)[0]!.message).toBe(
      'collective #1 of group [0,1] is Y on device 1 but X on device 0: members must issue collectives in the same order',
    );
  });
});
