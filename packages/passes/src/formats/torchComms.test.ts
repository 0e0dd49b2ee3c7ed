/**
 * compute_comms rows from hand-built plans: the collectives data parallelism and ZeRO-3 put in a
 * plan become torch's UNSHARD / RESHARD / REDUCE_GRAD, SEND/RECV become SEND_F/RECV_F/SEND_B/RECV_B.
 */
import type { Instruction, P2PInstruction, Plan } from '@stagecraft/ir';
import { expect, test } from 'vitest';
import type { ExpandedDirective } from '../driver/compileTypes.ts';
import { formatTorchRows } from './torchAction.ts';
import { exportTorchCsv, planToTorchRows } from './torchExport.ts';

const program: ExpandedDirective[] = [
  {
    directive: { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
    source: 0,
    path: ['directives', 0],
  },
];

const compute = (
  op: 'F' | 'B' | 'BI' | 'BW',
  pp: number,
  mb: number,
  waits: string[] = [],
  block = pp,
): Instruction => ({
  op,
  id: `${op}.b${block}.mb${mb}`,
  tags: { PP: pp, MB: mb, PASS: op },
  waits,
});
const collective = (
  op: 'ALL_GATHER' | 'REDUCE_SCATTER' | 'ALL_REDUCE',
  id: string,
  pp: number,
  waits: string[] = [],
): Instruction => ({
  op,
  id,
  tags: { PP: pp },
  waits,
  devices: [0, 1],
  bytes: 1024,
  collective: id,
});

/** One pipeline stage on a data-parallel group of two devices, ZeRO-3: gather before F, again before B. */
function zero3Plan(): { plan: Plan; start: Map<string, number> } {
  const streams = [
    {
      stream: 'compute',
      instructions: [
        compute('F', 0, 0, ['AG.f']),
        compute('F', 0, 1),
        compute('B', 0, 0, ['AG.b']),
        compute('B', 0, 1),
      ],
    },
    {
      stream: 'gather',
      instructions: [collective('ALL_GATHER', 'AG.f', 0), collective('ALL_GATHER', 'AG.b', 0, ['F.b0.mb1'])],
    },
    { stream: 'reduce', instructions: [collective('REDUCE_SCATTER', 'RS', 0, ['B.b0.mb1'])] },
  ];
  const start = new Map(
    Object.entries({
      'AG.f': 0,
      'F.b0.mb0': 0,
      'F.b0.mb1': 1,
      'AG.b': 2,
      'B.b0.mb0': 2,
      'B.b0.mb1': 4,
      RS: 6,
    }),
  );
  const plan: Plan = {
    format: 'stagecraft/plan@1',
    name: 'zero3',
    cluster: { kind: 'ideal', devices: 2 },
    groups: [[0, 1]],
    devices: [0, 1].map((device) => ({ device, group: 0, stages: [0], paramBytes: 0, streams })),
  };
  return { plan, start };
}

test('ZeRO-3 gathers become UNSHARD, each use ends with RESHARD, the gradient reduce-scatter REDUCE_GRAD', () => {
  const { plan, start } = zero3Plan();
  const r = exportTorchCsv(plan, program, { format: 'compute_comms', startMs: (_d, id) => start.get(id) });
  expect(r).toEqual({
    ok: true,
    text: '0UNSHARD,0F0,0F1,0RESHARD,0UNSHARD,0B0,0B1,0REDUCE_GRAD,0RESHARD\n',
  });
});

test('compute_only leaves the collectives to torch’s own lowering', () => {
  const { plan } = zero3Plan();
  expect(exportTorchCsv(plan, program, {})).toEqual({ ok: true, text: '0F0,0F1,0B0,0B1\n' });
});

test('a gradient all-reduce is REDUCE_GRAD once per stage, after its last backward', () => {
  const plan: Plan = {
    format: 'stagecraft/plan@1',
    name: 'ddp',
    cluster: { kind: 'ideal', devices: 2 },
    groups: [[0, 1]],
    devices: [0, 1].map((device) => ({
      device,
      group: 0,
      stages: [0],
      paramBytes: 0,
      streams: [
        {
          stream: 'compute',
          instructions: [
            compute('F', 0, 0),
            compute('F', 0, 1),
            compute('BI', 0, 0),
            compute('BW', 0, 0),
            compute('BI', 0, 1),
            compute('BW', 0, 1),
          ],
        },
        {
          stream: 'reduce',
          instructions: [
            collective('ALL_REDUCE', 'AR.0', 0, ['BW.b0.mb0']),
            collective('ALL_REDUCE', 'AR.1', 0, ['BW.b0.mb1']),
          ],
        },
      ],
    })),
  };
  const order = ['F.b0.mb0', 'F.b0.mb1', 'BI.b0.mb0', 'BW.b0.mb0', 'AR.0', 'BI.b0.mb1', 'BW.b0.mb1', 'AR.1'];
  const r = exportTorchCsv(plan, program, {
    format: 'compute_comms',
    startMs: (_d, id) => order.indexOf(id),
  });
  expect(r).toEqual({ ok: true, text: '0F0,0F1,0I0,0W0,0I1,0W1,0REDUCE_GRAD\n' });
});

test('the blocks of one stage are one torch action, with each block’s gather moved before it', () => {
  const plan: Plan = {
    format: 'stagecraft/plan@1',
    name: 'two blocks',
    cluster: { kind: 'ideal', devices: 1 },
    groups: [[0]],
    devices: [
      {
        device: 0,
        group: 0,
        stages: [0],
        paramBytes: 0,
        streams: [
          {
            stream: 'compute',
            instructions: [
              compute('F', 0, 0, ['AG.0'], 0),
              compute('F', 0, 0, ['AG.1'], 1),
              compute('B', 0, 0, [], 1),
              compute('B', 0, 0, [], 0),
            ],
          },
          {
            stream: 'gather',
            instructions: [
              collective('ALL_GATHER', 'AG.0', 0),
              collective('ALL_GATHER', 'AG.1', 0, ['F.b0.mb0']),
            ],
          },
        ],
      },
    ],
  };
  const one: ExpandedDirective[] = [];
  const order = ['AG.0', 'F.b0.mb0', 'AG.1', 'F.b1.mb0', 'B.b1.mb0', 'B.b0.mb0'];
  const rows = planToTorchRows(plan, one, {
    format: 'compute_comms',
    startMs: (_d, id) => order.indexOf(id),
  });
  if (!rows.ok) throw new Error(JSON.stringify(rows.errors));
  expect(formatTorchRows(rows.rows, 'current')).toBe('0UNSHARD,0F0,0B0,0REDUCE_GRAD,0RESHARD\n');
});

test('SEND and RECV of activations and gradients name the sending and the receiving stage', () => {
  const send = (pass: 'F' | 'B', pp: number, mb: number, peer: number, waits: string[]): P2PInstruction => ({
    op: 'SEND',
    id: `SEND.${pass}.b${pp}.mb${mb}`,
    tags: { PP: pp, MB: mb, PASS: pass },
    waits,
    peer,
    bytes: 8,
    transfer: `${pass}.b${pp}.mb${mb}`,
  });
  const recv = (pass: 'F' | 'B', pp: number, mb: number, peer: number): Instruction => ({
    ...send(pass, pp, mb, peer, []),
    op: 'RECV',
    id: `RECV.${pass}.b${pp}.mb${mb}`,
  });
  const dev = (device: number, c: Instruction[], p2p: Instruction[]) => ({
    device,
    group: device,
    stages: [device],
    paramBytes: 0,
    streams: [
      { stream: 'compute', instructions: c },
      { stream: 'p2p', instructions: p2p },
    ],
  });
  const plan: Plan = {
    format: 'stagecraft/plan@1',
    name: 'p2',
    cluster: { kind: 'ideal', devices: 2 },
    groups: [[0], [1]],
    devices: [
      dev(
        0,
        [compute('F', 0, 0), compute('B', 0, 0, ['RECV.B.b1.mb0'])],
        [send('F', 0, 0, 1, ['F.b0.mb0']), recv('B', 1, 0, 1)],
      ),
      dev(
        1,
        [compute('F', 1, 0, ['RECV.F.b0.mb0']), compute('B', 1, 0)],
        [recv('F', 0, 0, 0), send('B', 1, 0, 0, ['B.b1.mb0'])],
      ),
    ],
  };
  const times: Record<string, number> = {
    '0|F.b0.mb0': 0,
    '0|SEND.F.b0.mb0': 1,
    '0|RECV.B.b1.mb0': 1,
    '0|B.b0.mb0': 3,
    '1|RECV.F.b0.mb0': 0,
    '1|F.b1.mb0': 1,
    '1|B.b1.mb0': 2,
    '1|SEND.B.b1.mb0': 3,
  };
  const split: ExpandedDirective[] = [
    {
      directive: { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 1 },
      source: 0,
      path: ['directives', 0],
    },
  ];
  const r = exportTorchCsv(plan, split, { format: 'compute_comms', startMs: (d, id) => times[`${d}|${id}`] });
  expect(r).toEqual({
    ok: true,
    text: '0F0,0SEND_F0,0RECV_B0,0B0,0REDUCE_GRAD\n1RECV_F0,1F0,1B0,1SEND_B0,1REDUCE_GRAD\n',
  });
});

test('a gather of updated parameters after the last compute (ZeRO-1/2) is not an UNSHARD', () => {
  const { plan } = zero3Plan();
  const dev = plan.devices[0]!;
  const streams = [
    {
      stream: 'compute',
      instructions: [compute('F', 0, 0), compute('F', 0, 1), compute('B', 0, 0), compute('B', 0, 1)],
    },
    {
      stream: 'reduce',
      instructions: [
        collective('REDUCE_SCATTER', 'RS', 0, ['B.b0.mb1']),
        collective('ALL_GATHER', 'AG', 0, ['RS']),
      ],
    },
  ];
  const zero2: Plan = { ...plan, devices: [0, 1].map((device) => ({ ...dev, device, streams })) };
  const order = ['F.b0.mb0', 'F.b0.mb1', 'B.b0.mb0', 'B.b0.mb1', 'RS', 'AG'];
  const r = exportTorchCsv(zero2, program, {
    format: 'compute_comms',
    startMs: (_d, id) => order.indexOf(id),
  });
  expect(r).toEqual({ ok: true, text: '0F0,0F1,0B0,0B1,0REDUCE_GRAD\n' });
});

test('recompute and offload stay inside the stage module: the row leaves them out', () => {
  const rc: Instruction = { op: 'RECOMPUTE', id: 'RECOMPUTE.b0.mb0', tags: { PP: 0, MB: 0 }, waits: [] };
  const off: Instruction = {
    op: 'OFFLOAD',
    id: 'OFFLOAD.b0.mb0',
    tags: { PP: 0, MB: 0 },
    waits: ['F.b0.mb0'],
    bytes: 8,
  };
  const back: Instruction = {
    op: 'RELOAD',
    id: 'RELOAD.b0.mb0',
    tags: { PP: 0, MB: 0 },
    waits: ['OFFLOAD.b0.mb0'],
    bytes: 8,
  };
  const plan: Plan = {
    format: 'stagecraft/plan@1',
    name: 'recompute',
    cluster: { kind: 'ideal', devices: 1 },
    groups: [[0]],
    devices: [
      {
        device: 0,
        group: 0,
        stages: [0],
        paramBytes: 0,
        streams: [
          {
            stream: 'compute',
            instructions: [
              compute('F', 0, 0),
              compute('F', 0, 1),
              rc,
              compute('B', 0, 0),
              compute('B', 0, 1),
            ],
          },
          { stream: 'offload', instructions: [off, back] },
        ],
      },
    ],
  };
  const order = [
    'F.b0.mb0',
    'OFFLOAD.b0.mb0',
    'F.b0.mb1',
    'RELOAD.b0.mb0',
    'RECOMPUTE.b0.mb0',
    'B.b0.mb0',
    'B.b0.mb1',
  ];
  const startMs = (_d: number, id: string) => order.indexOf(id);
  expect(exportTorchCsv(plan, program, {})).toEqual({ ok: true, text: '0F0,0F1,0B0,0B1\n' });
  expect(exportTorchCsv(plan, program, { format: 'compute_comms', startMs })).toEqual({
    ok: true,
    text: '0F0,0F1,0B0,0B1,0REDUCE_GRAD\n',
  });
});
