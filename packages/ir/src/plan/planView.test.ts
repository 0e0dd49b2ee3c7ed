import { describe, expect, test } from 'vitest';
import type { ComputeInstruction, DevicePlan, Instruction, P2PInstruction } from './plan.ts';
import { PlanView } from './planView.ts';

type Device = Pick<DevicePlan, 'device' | 'replicas'> & {
  streams: { stream: string; instructions: Instruction[] }[];
};

const tags = {};
const waits: string[] = [];
const f = (id: string): ComputeInstruction => ({ id, op: 'F', tags, waits, ms: 1 });
const send = (id: string, peer: number, transfer: string): P2PInstruction => ({
  id,
  op: 'SEND',
  tags,
  waits,
  peer,
  bytes: 8,
  transfer,
});
const recv = (id: string, peer: number, transfer: string): Instruction => ({
  ...send(id, peer, transfer),
  op: 'RECV',
});

/** Two stages; stage 0 is a group lowered once (device 0 stands for device 2 too). */
function twoStages(): { devices: Device[] } {
  return {
    devices: [
      {
        device: 0,
        replicas: [2],
        streams: [
          { stream: 'compute', instructions: [f('F0'), f('F1')] },
          { stream: 'p2p', instructions: [send('S0', 1, 't0'), send('S1', 1, 't1')] },
        ],
      },
      {
        device: 1,
        streams: [
          {
            stream: 'compute',
            instructions: [
              recv('R1', 0, 't1'),
              recv('R0', 0, 't0'),
              { id: 'O', op: 'OVERLAP', tags, waits, members: [f('M0'), f('M1')] },
            ],
          },
        ],
      },
    ],
  };
}

describe('PlanView', () => {
  test('a replica resolves to the device plan of its representative', () => {
    const view = new PlanView(twoStages());
    expect(view.indexOf(2)).toBe(0);
    expect(view.deviceOf(2)?.device).toBe(0);
    expect(view.deviceOf(1)?.device).toBe(1);
  });

  test('a device the plan does not run has no device plan', () => {
    const view = new PlanView(twoStages());
    expect(view.indexOf(7)).toBe(-1);
    expect(view.deviceOf(7)).toBeUndefined();
    expect(view.placeOf(7, 'F0')).toBeUndefined();
  });

  test('an instruction is placed by device, stream and position; a replica reads its representative’s', () => {
    const view = new PlanView(twoStages());
    expect(view.placeOf(2, 'S1')).toMatchObject({ stream: 'p2p', index: 1 });
    expect(view.placeOf(0, 'F1')?.instruction.id).toBe('F1');
    // Ids are per device plan: device 1 has no F0.
    expect(view.placeOf(1, 'F0')).toBeUndefined();
  });

  test('instruction(id) finds members of an overlapped unit too', () => {
    const view = new PlanView(twoStages());
    expect(view.instruction('M1')?.op).toBe('F');
    expect(view.instruction('O')?.op).toBe('OVERLAP');
    expect(view.instruction('nope')).toBeUndefined();
  });

  test('a RECV answers the SEND of its transfer, whatever the order it is received in', () => {
    const view = new PlanView(twoStages());
    expect(view.recvOf('S0')).toBe('R0');
    expect(view.recvOf('S1')).toBe('R1');
    expect([...view.transfers]).toEqual([
      ['S0', 'R0'],
      ['S1', 'R1'],
    ]);
  });

  test('a SEND nobody receives has no RECV', () => {
    const plan = twoStages();
    plan.devices[0]!.streams[1] = { stream: 'p2p', instructions: [send('S0', 1, 'other')] };
    expect(new PlanView(plan).recvOf('S0')).toBeUndefined();
  });

  test('transfers given by the caller are the ones it answers from', () => {
    const view = new PlanView({ devices: [] }, new Map([['S', 'R']]));
    expect(view.recvOf('S')).toBe('R');
  });

  test('a device listed twice is the first device plan’s', () => {
    const plan = twoStages();
    plan.devices.push({ device: 1, streams: [] });
    expect(new PlanView(plan).indexOf(1)).toBe(1);
  });
});
