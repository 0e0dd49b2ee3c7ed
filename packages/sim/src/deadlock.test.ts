import { describe, expect, it } from 'vitest';
import { collective, compute, device, plan, recv, send } from '../test/testPlans.ts';
import { simulate } from './simulate.ts';
import type { SimulationResult } from './types.ts';

function deadlock(r: SimulationResult) {
  if (r.ok || !r.deadlock) throw new Error('expected a deadlock');
  return r;
}

describe('deadlock', () => {
  it('two devices that each wait for the other to send first return the cycle instead of hanging', () => {
    // Each device's compute needs the other's data before it sends its own.
    const p = plan([
      device(0, { c: [recv('r', 1, 'b'), compute('F', 'F', 1, { waits: ['r'] }), send('s', 1, 'a')] }),
      device(1, { c: [recv('r', 0, 'a'), compute('F', 'F', 1, { waits: ['r'] }), send('s', 0, 'b')] }),
    ]);
    const r = deadlock(simulate(p));
    const cycle = r.deadlock!.cycle.map((e) => [
      e.device,
      e.instruction,
      e.waitsFor?.device,
      e.waitsFor?.instruction,
    ]);
    expect(cycle).toEqual([
      [0, 'r', 1, 's'],
      [1, 'F', 1, 'r'],
      [1, 'r', 0, 's'],
      [0, 'F', 0, 'r'],
    ]);
    expect(r.errors[0]!.message).toMatch(
      /^deadlock: "r" \(device 0, stream c\) waits for its SEND "s" \(device 1/,
    );
    expect(r.deadlock!.stuck.map((e) => [e.device, e.stream, e.instruction])).toEqual([
      [0, 'c', 'r'],
      [1, 'c', 'r'],
    ]);
  });

  it('two streams waiting for each other on one device form a cycle of two', () => {
    const p = plan([
      device(0, {
        a: [compute('F', 'X', 1, { waits: ['Y'] })],
        b: [compute('F', 'Y', 1, { waits: ['X'] })],
      }),
    ]);
    const r = deadlock(simulate(p));
    expect(r.deadlock!.cycle.map((e) => [e.stream, e.instruction, e.waitsFor?.instruction])).toEqual([
      ['a', 'X', 'Y'],
      ['b', 'Y', 'X'],
    ]);
    expect(r.errors.map((e) => e.path)).toEqual([
      'devices[0].streams[0].instructions[0]',
      'devices[0].streams[0].instructions[0]',
      'devices[0].streams[1].instructions[0]',
    ]);
  });

  it('waiting for a later instruction of the same stream is a cycle through that stream', () => {
    const p = plan([device(0, { a: [compute('F', 'X', 1, { waits: ['Z'] }), compute('F', 'Z', 1)] })]);
    const r = deadlock(simulate(p));
    expect(r.deadlock!.cycle).toEqual([
      {
        device: 0,
        stream: 'a',
        instruction: 'X',
        path: 'devices[0].streams[0].instructions[0]',
        waitsFor: { device: 0, stream: 'a', instruction: 'Z', reason: 'wait' },
      },
    ]);
  });

  it('collectives issued in different orders on two devices deadlock, naming the members', () => {
    const p = plan([
      device(0, {
        c: [collective('ALL_REDUCE', 'x', 'X', [0, 1], 1), collective('ALL_REDUCE', 'y', 'Y', [0, 1], 1)],
      }),
      device(1, {
        c: [collective('ALL_REDUCE', 'y', 'Y', [0, 1], 1), collective('ALL_REDUCE', 'x', 'X', [0, 1], 1)],
      }),
    ]);
    const r = deadlock(simulate(p));
    expect(r.deadlock!.cycle.map((e) => [e.device, e.instruction, e.waitsFor?.reason])).toEqual([
      [0, 'x', 'collective'],
      [1, 'y', 'collective'],
    ]);
  });

  it('a stream blocked behind its own stuck instruction is reported at that instruction', () => {
    const p = plan([
      device(0, {
        a: [compute('F', 'X', 1, { waits: ['Y'] }), compute('F', 'after', 1)],
        b: [compute('F', 'Y', 1, { waits: ['after'] })],
      }),
    ]);
    const r = deadlock(simulate(p));
    // Y waits for `after`, which sits behind X on stream a; X waits for Y.
    expect(r.deadlock!.cycle.map((e) => e.instruction)).toEqual(['X', 'Y']);
    expect(r.deadlock!.cycle[1]!.waitsFor?.instruction).toBe('after');
  });
});
