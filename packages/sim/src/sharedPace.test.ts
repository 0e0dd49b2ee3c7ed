import type { DevicePlan } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { collective, compute, device, plan, recv, send, TWO_NODES_OF_4 } from '../test/testPlans.ts';
import { allReduceMs } from './costModel.ts';
import { simulate } from './simulate.ts';
import type { Simulation } from './types.ts';

const cluster = TWO_NODES_OF_4;

function sim(devices: DevicePlan[], extra: { modelFlopsPerStep?: number } = {}): Simulation {
  const p = plan(devices, { cluster });
  if (extra.modelFlopsPerStep !== undefined) p.modelFlopsPerStep = extra.modelFlopsPerStep;
  const r = simulate(p);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.sim;
}

const endOf = (s: Simulation, id: string, dev = 0) =>
  s.timeline!.find((e) => e.id === id && e.device === dev)!.endMs;

describe('the simulator on a real cluster', () => {
  it('two transfers over the same link of a device share its bandwidth', () => {
    const s = sim([
      device(0, { a: [send('s1', 1, 't1', { bytes: 4e8 })], b: [send('s2', 2, 't2', { bytes: 4e8 })] }),
      device(1, { a: [recv('r1', 0, 't1', { bytes: 4e8 })] }),
      device(2, { a: [recv('r2', 0, 't2', { bytes: 4e8 })] }),
    ]);
    // Alone each takes 5 µs + 4e8 / 4e8 ms; together each goes at half the rate.
    expect(endOf(s, 's1')).toBeCloseTo(2 * 1.005, 9);
    expect(endOf(s, 's2')).toBeCloseTo(2 * 1.005, 9);
  });

  it('transfers over different links (NVLink, InfiniBand) do not slow each other', () => {
    const s = sim([
      device(0, { a: [send('s1', 1, 't1', { bytes: 4e8 })], b: [send('s2', 4, 't2', { bytes: 5e7 })] }),
      device(1, { a: [recv('r1', 0, 't1', { bytes: 4e8 })] }),
      device(4, { a: [recv('r2', 0, 't2', { bytes: 5e7 })] }),
    ]);
    expect(endOf(s, 's1')).toBeCloseTo(1.005, 9);
    expect(endOf(s, 's2')).toBeCloseTo(1.02, 9);
  });

  it('compute slows by the SM share of the communication running beside it', () => {
    const p = plan(
      [
        device(0, {
          compute: [compute('F', 'f', undefined, { flops: 1e13 })],
          comm: [send('s', 1, 't', { bytes: 4e8 })],
        }),
        device(1, { comm: [recv('r', 0, 't', { bytes: 4e8 })] }),
      ],
      { cluster },
    );
    p.devices[0]!.streams[1]!.smFraction = 0.25;
    const r = simulate(p);
    if (!r.ok) throw new Error('unexpected');
    // 10 ms of compute; during the 1.005 ms transfer it runs at 0.75.
    expect(endOf(r.sim, 'f')).toBeCloseTo(1.005 + (10 - 0.75 * 1.005), 9);
    expect(r.sim.devices[0]!.busyMs).toBeCloseTo(1.005 + (10 - 0.75 * 1.005), 9);
  });

  it('a ring all-reduce inside one node takes 2(n−1)/n · bytes/bw + 2(n−1)·α once all members arrive', () => {
    const ar = (d: number) => collective('ALL_REDUCE', `ar${d}`, 'g', [0, 1, 2, 3], 4e8);
    const s = sim([0, 1, 2, 3].map((d) => device(d, { dp: [ar(d)] })));
    expect(allReduceMs(4, 4e8, { bytesPerMs: 4e8, latencyMs: 0.005 })).toBeCloseTo(1.53, 12);
    expect(s.makespanMs).toBeCloseTo(1.53, 9);
  });

  it('counts compute waiting for an all-to-all as exposed all-to-all time', () => {
    const a2a = (d: number) => collective('ALL_TO_ALL', `a2a${d}`, 'g', [0, 4], 5e7);
    const after = (d: number) => compute('F', `f${d}`, 1, { waits: [`a2a${d}`] });
    const s = sim([0, 4].map((d) => device(d, { compute: [after(d)], ep: [a2a(d)] })));
    // Across nodes: (n−1)/n · 5e7 / 5e7 + (n−1) · 20 µs.
    expect(s.exposedCommByKindMs!.ALL_TO_ALL).toBeCloseTo(2 * (0.5 + 0.02), 9);
    expect(s.devices[0]!.exposedCommMs).toBeCloseTo(0.52, 9);
    expect(s.makespanMs).toBeCloseTo(1.52, 9);
  });

  it('MFU is model FLOPs over step time × GPUs × peak', () => {
    const s = sim(
      [device(0, { compute: [compute('F', 'f', undefined, { flops: 1e13 })] }), device(1, { compute: [] })],
      { modelFlopsPerStep: 1e13 },
    );
    // 10 ms at 1 PFLOP/s on one of two GPUs.
    expect(s.mfu).toBeCloseTo(0.5, 12);
  });

  it('flags a device whose memory exceeds its GPU’s, as a warning', () => {
    const d = device(0, { compute: [compute('F', 'f', 1, { alloc: 2 * 2 ** 30, free: 2 * 2 ** 30 })] });
    d.staticBytes = 79 * 2 ** 30;
    const s = sim([d]);
    expect(s.devices[0]).toMatchObject({
      peakMemoryBytes: 81 * 2 ** 30,
      peakActivationBytes: 2 * 2 ** 30,
      oom: true,
    });
    expect(s.warnings).toEqual(["device 0: out of memory, peak 81.0 GiB over the GPU's 80.0 GiB"]);
  });

  it('a group lowered once with replicas simulates as its expanded form and reports every replica', () => {
    const prog = (peer: number) => ({
      compute: [compute('F', `f`, 1), compute('B', 'b', 2, { waits: ['ar'] })],
      dp: [collective('ALL_REDUCE', 'ar', 'g', [0, 1], 4e8, { waits: ['f'] })],
      p2p: [send('s', peer, 't', { bytes: 4e8, waits: ['f'] })],
    });
    const other = (peer: number) => ({ p2p: [recv('r', peer, 't', { bytes: 4e8 })] });
    const expanded = sim([device(0, prog(2)), device(1, prog(3)), device(2, other(0)), device(3, other(1))]);
    const rep = device(0, prog(2));
    rep.replicas = [1];
    const peer = device(2, other(0));
    peer.replicas = [3];
    const compact = sim([rep, peer]);
    expect(compact.makespanMs).toBeCloseTo(expanded.makespanMs, 12);
    expect(compact.devices.map((d) => d.device)).toEqual([0, 1, 2, 3]);
    expect(compact.devices[1]!.busyMs).toBe(expanded.devices[1]!.busyMs);
  });
});
