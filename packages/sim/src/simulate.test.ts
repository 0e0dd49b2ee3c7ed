import { type CustomCluster, type Design, validatePlan } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, it } from 'vitest';
import { collective, compute, device, oneFOneB, overlap, plan, recv, send } from '../test/testPlans.ts';
import { simulate } from './simulate.ts';
import type { Simulation, SimulationResult } from './types.ts';

function ok(r: SimulationResult): Simulation {
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.sim;
}

function event(sim: Simulation, dev: number, id: string) {
  const e = sim.timeline?.find((x) => x.device === dev && x.id === id);
  if (!e) throw new Error(`no event ${id} on device ${dev}`);
  return e;
}

const custom = (over: Partial<CustomCluster> = {}): CustomCluster => ({
  kind: 'custom',
  nodes: 2,
  gpusPerNode: 2,
  gpu: { peakTflops: 100, achievableFraction: 0.5, memoryGiB: 80 },
  intraNode: { bandwidthGBps: 100, latencyUs: 10 },
  interNode: { bandwidthGBps: 10, latencyUs: 100 },
  ...over,
});

describe('simulate', () => {
  it('a RECV ends when the SEND of its chain on the peer ends, so a two-device chain runs back to back', () => {
    const p = plan([
      device(0, { compute: [compute('F', 'F0', 2), send('s', 1, 't0', { waits: [] })] }),
      device(1, { compute: [recv('r', 0, 't0'), compute('F', 'F1', 3, { waits: ['r'] })] }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 1, 'r')).toMatchObject({ startMs: 0, endMs: 2, peer: 0 });
    expect(event(sim, 1, 'F1')).toMatchObject({ startMs: 2, endMs: 5 });
    expect(sim.makespanMs).toBe(5);
    expect(sim.ops).toBe(4);
    expect(sim.devices.map((d) => d.busyMs)).toEqual([2, 3]);
  });

  it('a SEND is eager: it finishes without its RECV having started', () => {
    const p = plan([
      device(0, { compute: [send('s', 1, 'x'), compute('F', 'A', 1)] }),
      device(1, { compute: [compute('F', 'B', 5), recv('r', 0, 'x')] }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 0, 'A')).toMatchObject({ startMs: 0, endMs: 1 });
    expect(event(sim, 1, 'r')).toMatchObject({ startMs: 5, endMs: 5 });
  });

  it('a RECV is posted: the next instruction of its stream starts at once, its waiters at its end', () => {
    const p = plan([
      device(0, { c: [compute('F', 'F', 4), send('s', 1, 'x')] }),
      device(1, {
        c: [recv('r', 0, 'x'), compute('F', 'free', 1), compute('F', 'uses', 1, { waits: ['r'] })],
      }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 1, 'r')).toMatchObject({ startMs: 0, endMs: 4 });
    expect(event(sim, 1, 'free')).toMatchObject({ startMs: 0, endMs: 1 });
    expect(event(sim, 1, 'uses')).toMatchObject({ startMs: 4, endMs: 5 });
  });

  it('RECVs in a row on one stream are all posted at once and end with their own SENDs', () => {
    const p = plan([
      device(0, { c: [compute('F', 'a', 3), send('sa', 1, 'a'), compute('F', 'b', 1), send('sb', 1, 'b')] }),
      device(1, { c: [recv('rb', 0, 'b'), recv('ra', 0, 'a'), compute('F', 'G', 1, { waits: ['ra'] })] }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 1, 'ra')).toMatchObject({ startMs: 0, endMs: 3 });
    expect(event(sim, 1, 'rb')).toMatchObject({ startMs: 0, endMs: 4 });
    expect(event(sim, 1, 'G')).toMatchObject({ startMs: 3, endMs: 4 });
  });

  it('an instruction waits for the ids in its waits on other streams of its device', () => {
    const p = plan([
      device(0, {
        a: [compute('F', 'X', 4)],
        b: [compute('F', 'Y', 1, { waits: ['X'] }), compute('F', 'Z', 1)],
      }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 0, 'Y')).toMatchObject({ startMs: 4, endMs: 5 });
    expect(event(sim, 0, 'Z')).toMatchObject({ startMs: 5, endMs: 6 });
  });

  it('an overlap unit costs its own ms, not the sum of its members', () => {
    const p = plan([
      device(0, {
        compute: [overlap('FB', [compute('F', 'F1', 1, { mb: 1 }), compute('B', 'B0', 2, { mb: 0 })], 2.5)],
      }),
    ]);
    const sim = ok(simulate(p));
    expect(sim.makespanMs).toBe(2.5);
    expect(sim.ops).toBe(2);
    expect(sim.devices[0]!.busyMs).toBe(2.5);
    expect(event(sim, 0, 'FB').members).toEqual(['F1', 'B0']);
  });

  it('an overlap unit without ms costs the sum of its members and waits for all their waits', () => {
    const p = plan([
      device(0, {
        side: [compute('F', 'pre', 3)],
        compute: [overlap('FB', [compute('F', 'F1', 1), compute('B', 'B0', 2, { waits: ['pre'] })])],
      }),
    ]);
    const sim = ok(simulate(p));
    expect(event(sim, 0, 'FB')).toMatchObject({ startMs: 3, endMs: 6 });
  });

  it('another instruction may wait for a member of an overlap unit: it waits for the whole unit', () => {
    const p = plan([
      device(0, {
        compute: [overlap('FB', [compute('F', 'F1', 1), compute('B', 'B0', 2)])],
        comm: [compute('UPD', 'U', 1, { waits: ['B0'] })],
      }),
    ]);
    expect(event(ok(simulate(p)), 0, 'U')).toMatchObject({ startMs: 3, endMs: 4 });
  });

  it('p2p latency adds up along a chain of three devices', () => {
    const chain = [
      device(0, { c: [compute('F', 'F', 1), send('s', 1, 'a')] }),
      device(1, { c: [recv('r', 0, 'a'), compute('F', 'F', 1, { waits: ['r'] }), send('s', 2, 'b')] }),
      device(2, { c: [recv('r', 1, 'b'), compute('F', 'F', 1, { waits: ['r'] })] }),
    ];
    const sim = ok(simulate(plan(chain, { cluster: { kind: 'ideal', devices: 3, p2pLatencyMs: 0.5 } })));
    expect(sim.makespanMs).toBe(4);
    expect(event(sim, 2, 'F')).toMatchObject({ startMs: 3, endMs: 4 });
  });

  it('1F1B on 2 ranks and 4 microbatches built by hand takes (m+p−1)(F+B) with both bubble conventions', () => {
    const [p, m, F, B] = [2, 4, 1, 2];
    const sim = ok(simulate(oneFOneB(p, m, { F, B })));
    expect(sim.makespanMs).toBe((m + p - 1) * (F + B));
    expect(sim.bubbleRatio).toBeCloseTo((p - 1) / (m + p - 1), 12);
    expect(sim.bubbleOverIdeal).toBeCloseTo((p - 1) / m, 12);
    for (const d of sim.devices) {
      expect(d.busyMs).toBe(m * (F + B));
      expect(d.idleMs).toBe((p - 1) * (F + B));
    }
    expect(sim.devices[0]).toMatchObject({ firstStartMs: 0, lastEndMs: 15, spanBubbleMs: 3 });
    expect(sim.devices[1]).toMatchObject({ firstStartMs: 1, lastEndMs: 13, spanBubbleMs: 0 });
  });

  it('1F1B on 4 ranks and 8 microbatches takes (m+p−1)(F+B) and rank r stashes p−r activations', () => {
    const sim = ok(simulate(oneFOneB(4, 8, { F: 1, B: 2, activationBytes: 100 })));
    expect(sim.makespanMs).toBe(33);
    expect(sim.devices.map((d) => d.peakActivationBytes)).toEqual([400, 300, 200, 100]);
  });

  it('the memory peak of a stash pattern is every stashed activation plus the parameters', () => {
    const act = 10;
    const fs = [0, 1, 2, 3].map((i) => compute('F', `F${i}`, 1, { alloc: act }));
    const bs = [3, 2, 1, 0].map((i) => compute('B', `B${i}`, 2, { free: act }));
    const sim = ok(simulate(plan([device(0, { c: [...fs, ...bs] }, { paramBytes: 1000 })])));
    expect(sim.devices[0]).toMatchObject({ peakMemoryBytes: 1040, peakActivationBytes: 40 });
    const points = sim.memory![0]!.points;
    expect(points[0]).toEqual([0, 1010]); // F0 allocates at 0: one point per time
    expect(points.at(-1)).toEqual([12, 1000]);
    expect(Math.max(...points.map(([, b]) => b))).toBe(1040);
  });

  it('frees at a time apply before allocations at the same time, whatever the event order', () => {
    // Z2 (alloc) becomes ready at t=2 from Z1's end before X's end (free) is processed at t=2.
    const p = plan([
      device(0, {
        a: [compute('F', 'Z1', 2), compute('F', 'Z2', 1, { alloc: 10 })],
        b: [compute('F', 'X', 2, { alloc: 10, free: 10 })],
      }),
    ]);
    const sim = ok(simulate(p));
    expect(sim.devices[0]!.peakMemoryBytes).toBe(10);
    // One point per time: X's free and Z2's allocation at t=2 net to no change.
    expect(sim.memory![0]!.points).toEqual([
      [0, 10],
      [2, 10],
    ]);
  });

  it('OFFLOAD releases its bytes at its end and RELOAD takes them back at its start', () => {
    const p = plan([
      device(0, {
        c: [
          compute('F', 'F0', 1, { alloc: 50 }),
          { id: 'off', op: 'OFFLOAD', bytes: 50, tags: {}, waits: [] },
          compute('F', 'F1', 1, { alloc: 50 }),
          { id: 'rel', op: 'RELOAD', bytes: 50, tags: {}, waits: [] },
          compute('B', 'B1', 1, { free: 50 }),
          compute('B', 'B0', 1, { free: 50 }),
        ],
      }),
    ]);
    expect(ok(simulate(p)).devices[0]!.peakActivationBytes).toBe(100);
  });

  it('members of a collective start together when the last one arrives and end together', () => {
    const members = [0, 1, 2];
    const p = plan(
      members.map((d) =>
        device(d, { c: [compute('F', 'F', d + 1), collective('ALL_REDUCE', 'ar', 'grads', members, 1e9)] }),
      ),
      { cluster: custom() },
    );
    const sim = ok(simulate(p));
    const ends = members.map((d) => event(sim, d, 'ar'));
    // 2 devices in node 0, one in node 1: the inter-node link (10 GB/s, 100 µs) is the slowest.
    const expected = ((2 * 2) / 3) * (1e9 / 1e10) * 1000 + 2 * 2 * 0.1;
    for (const e of ends) expect(e.startMs).toBe(3); // the last member's F ends at 3
    for (const e of ends) expect(e.endMs - e.startMs).toBeCloseTo(expected, 9);
    expect(event(sim, 0, 'ar').bytes).toBe(1e9);
  });

  it('on the ideal cluster collectives take no time', () => {
    const p = plan([0, 1].map((d) => device(d, { c: [collective('ALL_TO_ALL', 'a2a', 'k', [0, 1], 1e9)] })));
    expect(ok(simulate(p)).makespanMs).toBe(0);
  });

  it('compute with flops runs at peak × achievable fraction on a custom cluster', () => {
    const p = plan([device(0, { c: [compute('F', 'F', undefined, { flops: 100e12 })] })], {
      cluster: custom(),
    });
    expect(ok(simulate(p)).makespanMs).toBeCloseTo(2000, 9);
  });

  it('a SEND takes latency + bytes / bandwidth of the intra-node or inter-node link', () => {
    const mk = (to: number) =>
      plan(
        [
          device(0, { c: [send('s', to, 'x', { bytes: 1e9 })] }),
          device(to, { c: [recv('r', 0, 'x', { bytes: 1e9 })] }),
        ],
        { cluster: custom() },
      );
    expect(ok(simulate(mk(1))).makespanMs).toBeCloseTo(10 + 0.01, 9);
    expect(ok(simulate(mk(2))).makespanMs).toBeCloseTo(100 + 0.1, 9);
  });

  it('exposed communication counts transfer time while no compute runs on the device', () => {
    const bytes = 1e9; // 10 ms on the intra-node link + 0.01 ms latency
    const blocking = plan(
      [
        device(0, { c: [compute('F', 'F', 5), send('s', 1, 'x', { bytes })] }),
        device(1, { c: [recv('r', 0, 'x'), compute('F', 'G', 5, { waits: ['r'] })] }),
      ],
      { cluster: custom() },
    );
    const a = ok(simulate(blocking));
    // Device 0 sends for 10.01 ms with nothing to compute; device 1 waits on the wire as long.
    expect(a.exposedCommMs).toBeCloseTo(2 * 10.01, 9);

    const hidden = plan(
      [
        device(0, {
          c: [compute('F', 'F', 1), compute('F', 'busy', 20)],
          comm: [send('s', 1, 'x', { bytes, waits: ['F'] })],
        }),
        device(1, {
          c: [compute('F', 'busy', 20), compute('F', 'G', 1, { waits: ['r'] })],
          comm: [recv('r', 0, 'x')],
        }),
      ],
      { cluster: custom() },
    );
    expect(ok(simulate(hidden)).exposedCommMs).toBe(0);
  });

  it('on the ideal cluster a link latency is exposed communication while no compute runs, and none without it', () => {
    const devices = [
      device(0, { c: [compute('F', 'F', 1), send('s', 1, 'x')] }),
      device(1, { c: [recv('r', 0, 'x'), compute('F', 'G', 1, { waits: ['r'] })] }),
    ];
    // Device 0 sends for 0.5 ms with nothing to compute; device 1 has the data on the wire as long.
    const slow = ok(simulate(plan(devices, { cluster: { kind: 'ideal', devices: 2, p2pLatencyMs: 0.5 } })));
    expect(slow.exposedCommMs).toBe(1);
    expect(slow.devices.map((d) => d.exposedCommMs)).toEqual([0.5, 0.5]);
    expect(ok(simulate(plan(devices))).exposedCommMs).toBe(0);
  });

  it('waiting for the peer to reach its SEND is bubble, not exposed communication', () => {
    const p = plan([
      device(0, { c: [compute('F', 'F', 5), send('s', 1, 'x')] }),
      device(1, { c: [recv('r', 0, 'x'), compute('F', 'G', 5, { waits: ['r'] })] }),
    ]);
    expect(ok(simulate(p)).exposedCommMs).toBe(0);
  });

  it('tokens per second is tokens per step over the step time', () => {
    const p = plan([device(0, { c: [compute('F', 'F', 500)] })], { tokensPerStep: 4096 });
    expect(ok(simulate(p)).tokensPerSecond).toBe(8192);
  });

  it('devices are reported sorted by device number and the timeline can be left out', () => {
    const p = plan([device(3, { c: [compute('F', 'F', 1)] }), device(1, { c: [compute('F', 'F', 2)] })]);
    const sim = ok(simulate(p, { keepTimeline: false }));
    expect(sim.devices.map((d) => d.device)).toEqual([1, 3]);
    expect(sim.timeline).toBeUndefined();
    expect(sim.memory).toBeUndefined();
    expect(sim.devices[1]!.idleMs).toBe(1);
  });

  it('a plan of 200k instructions simulates', () => {
    const p = oneFOneB(8, 4200, { F: 1, B: 2, activationBytes: 1, bytes: 1 });
    const sim = ok(simulate(p, { keepTimeline: false }));
    expect(sim.ops).toBeGreaterThan(180_000);
    expect(sim.makespanMs).toBe((4200 + 7) * 3);
  });
});

describe('a compiled plan', () => {
  const design: Design = {
    format: 'stagecraft/design@1',
    name: '1f1b',
    model: { kind: 'synthetic', stages: 4, costs: { F: 1, BI: 1, BW: 1 } },
    cluster: { kind: 'ideal', devices: 4 },
    directives: [{ op: 'schedule', builder: '1f1b', microbatches: 8 }],
  };
  const compiled = () => {
    const r = compile(design);
    if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
    return r.plan;
  };

  it('simulates as edited in place after its instructions were read', () => {
    const p = compiled();
    expect(ok(simulate(p, { keepTimeline: false })).makespanMs).toBe((8 + 3) * 3);
    const first = p.devices[0]!.streams.find((s) => s.stream === 'compute')!.instructions[0]!;
    expect(first.op).toBe('F');
    (first as { ms: number }).ms = 100;
    expect(ok(simulate(p, { keepTimeline: false })).makespanMs).toBe((8 + 3) * 3 + 99);
    expect(ok(simulate(JSON.parse(JSON.stringify(p)), { keepTimeline: false })).makespanMs).toBe(
      (8 + 3) * 3 + 99,
    );
  });

  it('simulates as edited after a stream is replaced by a new object, its old instructions never read', () => {
    const p = compiled();
    const q = compiled();
    const k = q.devices[0]!.streams.findIndex((s) => s.stream === 'compute');
    const instructions = q.devices[0]!.streams[k]!.instructions.map((x, j) =>
      j === 0 ? { ...x, ms: 100 } : x,
    );
    p.devices[0]!.streams[k] = { stream: 'compute', instructions };
    expect(ok(simulate(p, { keepTimeline: false })).makespanMs).toBe((8 + 3) * 3 + 99);
  });

  it('simulated twice, with its timeline read in between, gives the same step', () => {
    const p = compiled();
    const a = ok(simulate(p));
    expect(a.timeline!.length).toBeGreaterThan(0);
    expect(ok(simulate(p)).makespanMs).toBe(a.makespanMs);
  });
});

describe('simulate reports bad plans as errors with paths', () => {
  it('an unknown preset cluster is an error at cluster.preset listing the known ones', () => {
    const p = plan([device(0, { c: [] })], { cluster: { preset: 'dgx-z100', nodes: 1 } });
    expect(simulate(p)).toEqual({
      ok: false,
      errors: [
        {
          path: 'cluster.preset',
          message: 'unknown cluster preset "dgx-z100" (known: dgx-a100, dgx-h100, dgx-h200)',
        },
      ],
    });
  });

  it('flops without ms on the ideal cluster cannot be timed', () => {
    const p = plan([device(0, { c: [compute('F', 'F', undefined, { flops: 1e12 })] })]);
    const r = simulate(p);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.path).toBe('devices[0].streams[0].instructions[0]');
  });

  it('a wait for an id the device does not have names the wait', () => {
    const p = plan([
      device(0, { c: [compute('F', 'F', 1)], d: [compute('F', 'G', 1, { waits: ['nope'] })] }),
    ]);
    const r = simulate(p);
    expect(r).toMatchObject({
      ok: false,
      errors: [{ path: 'devices[0].streams[1].instructions[0].waits[0]' }],
    });
  });

  it('a RECV without its SEND and a SEND without its RECV are errors, not hangs', () => {
    const p = plan([device(0, { c: [send('s', 1, 'x')] }), device(1, { c: [recv('r', 0, 'y')] })]);
    const r = simulate(p);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => e.path)).toEqual([
        'devices[1].streams[0].instructions[0]',
        'devices[0].streams[0].instructions[0]',
      ]);
  });

  it('a collective one of its devices never issues is an error', () => {
    const p = plan([
      device(0, { c: [collective('ALL_REDUCE', 'a', 'k', [0, 1], 1)] }),
      device(1, { c: [compute('F', 'F', 1)] }),
    ]);
    const r = simulate(p);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toMatch(/device 1 .* never issues it/);
  });

  it('duplicate ids on one device are a plan validation error, and simulating it still ends', () => {
    const p = plan([device(0, { c: [compute('F', 'X', 1), compute('B', 'X', 1)] })]);
    expect(validatePlan(p)[0]).toMatchObject({ path: 'devices[0].streams[0].instructions[1]' });
    expect(simulate(p).ok).toBe(true);
  });
});
