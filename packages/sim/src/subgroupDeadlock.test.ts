import { type Plan, validatePlan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { collective, device } from '../test/testPlans.ts';
import { simulate } from './simulate.ts';

/**
 * A dp × tp mesh of devices 0..3 (dp=0: 0, 1; dp=1: 2, 3). Each sub-group's collectives are in one
 * order on its members (each sub-group has one), yet the members interleave tp and dp collectives
 * so that each waits for the next around a ring: 0 → 1 → 3 → 2 → 0.
 */
function crossedSubgroups(): Plan {
  const tp = (dp: number, devs: number[]) =>
    collective('ALL_REDUCE', `tp.x[dp=${dp}]`, `tp.x[dp=${dp}]`, devs, 8);
  const dp = (tpc: number, devs: number[]) =>
    collective('ALL_REDUCE', `dp.x[tp=${tpc}]`, `dp.x[tp=${tpc}]`, devs, 8);
  const member = (dev: number, first: ReturnType<typeof tp>, second: ReturnType<typeof tp>) => ({
    ...device(dev, { compute: [first, second] }),
    group: 0,
  });
  return {
    format: 'stagecraft/plan@3',
    name: 'crossed sub-groups',
    cluster: { kind: 'ideal', devices: 4 },
    groups: [[0, 1, 2, 3]],
    meshes: [{ axes: ['dp', 'tp'], shape: [2, 2] }],
    devices: [
      member(0, tp(0, [0, 1]), dp(0, [0, 2])),
      member(1, dp(1, [1, 3]), tp(0, [0, 1])),
      member(2, dp(0, [0, 2]), tp(1, [2, 3])),
      member(3, tp(1, [2, 3]), dp(1, [1, 3])),
    ],
  };
}

describe('sub-group collective order', () => {
  it('validation refuses sub-group collectives that wait for each other around a ring, naming the cycle', () => {
    expect(validatePlan(crossedSubgroups())).toEqual([
      {
        path: 'devices[0].streams[0].instructions[0]',
        message:
          'deadlock: device 0 compute tp.x[dp=0] waits for device 1 compute dp.x[tp=1] (a member of the collective is issued after it); ' +
          'device 1 compute dp.x[tp=1] waits for device 2 compute tp.x[dp=1] (a member of the collective is issued after it); ' +
          'device 2 compute tp.x[dp=1] waits for device 0 compute dp.x[tp=0] (a member of the collective is issued after it); ' +
          'device 0 compute dp.x[tp=0] waits for device 0 compute tp.x[dp=0] (stream order); and around again',
      },
    ]);
  });

  it('the simulator reports the same plan as a deadlock with its cycle, instead of hanging', () => {
    const r = simulate(crossedSubgroups());
    if (r.ok || !r.deadlock) throw new Error('expected a deadlock');
    expect(r.deadlock.cycle.map((e) => [e.device, e.instruction])).toEqual([
      [0, 'tp.x[dp=0]'],
      [1, 'dp.x[tp=1]'],
      [3, 'tp.x[dp=1]'],
      [2, 'dp.x[tp=0]'],
    ]);
  });
});
