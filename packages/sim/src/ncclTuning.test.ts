import type { Cluster } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import {
  allGatherMs,
  allReduceMs,
  type CollectiveOp,
  type CostCluster,
  collectiveMs,
  groupSpan,
  resolveCluster,
  ringLink,
} from './costModel.ts';
import { NCCL_PROFILES, ncclChoice } from './ncclTuning.ts';

function custom(cluster: Cluster): CostCluster & { kind: 'custom' } {
  const r = resolveCluster(cluster);
  if (!r.ok || r.cost.kind !== 'custom') throw new Error('expected a custom cost cluster');
  return r.cost;
}

const h100 = custom({ preset: 'dgx-h100', nodes: 64 });
const a100 = custom({ preset: 'dgx-a100', nodes: 64 });
const NODE = [0, 1, 2, 3, 4, 5, 6, 7];
const TWO_NODES = Array.from({ length: 16 }, (_, i) => i);
const ONE_PER_NODE = Array.from({ length: 8 }, (_, i) => 8 * i);
const GiB = 2 ** 30;

/** nccl-tests' bus bandwidth of a collective that took `ms`, GB/s. */
function busGBps(op: CollectiveOp, n: number, bytes: number, ms: number): number {
  const factor = op === 'ALL_REDUCE' ? (2 * (n - 1)) / n : (n - 1) / n;
  return (factor * bytes) / ms / 1e6;
}

describe('collectives on a preset, as NCCL times them', () => {
  it('a small all-reduce inside a node costs the LL ring latency: 6.6 µs + 14 steps × 0.6 µs', () => {
    const ms = collectiveMs(h100, 'ALL_REDUCE', NODE, 8);
    // LL's bus bandwidth on one Hopper node: half of NVLink's 370, capped at NCCL's 141 GB/s.
    expect(ms).toBeCloseTo((6.6 + 14 * 0.6) * 1e-3 + (1.75 * 8) / 141e6, 12);
    const choice = ncclChoice(NCCL_PROFILES['dgx-h100']!, 'ALL_REDUCE', groupSpan(h100, NODE), 370e6, 8);
    expect([choice.algorithm, choice.protocol]).toEqual(['ring', 'LL']);
  });

  it("a large all-reduce inside an H100 node reaches NVLink SHARP's 480 GB/s bus bandwidth", () => {
    const ms = collectiveMs(h100, 'ALL_REDUCE', NODE, 4 * GiB);
    expect(ms).toBeCloseTo(0.025 + (1.75 * 4 * GiB) / 480e6, 9);
    expect(busGBps('ALL_REDUCE', 8, 4 * GiB, ms)).toBeGreaterThan(479);
  });

  it("a large all-gather inside a node reaches the ring's measured NVLink bus bandwidth (370 H100, 230 A100)", () => {
    // Simple ring: 8.4 µs + 3.4 µs per step, the bytes at the link's bus bandwidth.
    const simple = (steps: number, factor: number, busBytesPerMs: number) =>
      (8.4 + steps * 3.4) * 1e-3 + (factor * 4 * GiB) / busBytesPerMs;
    expect(collectiveMs(h100, 'ALL_GATHER', NODE, 4 * GiB)).toBeCloseTo(simple(7, 7 / 8, 370e6), 12);
    expect(collectiveMs(a100, 'ALL_GATHER', NODE, 4 * GiB)).toBeCloseTo(simple(7, 7 / 8, 230e6), 12);
    // A100's NVSwitch has no SHARP: its all-reduce stays a ring.
    expect(collectiveMs(a100, 'ALL_REDUCE', NODE, 4 * GiB)).toBeCloseTo(simple(14, 7 / 4, 230e6), 12);
    expect(
      busGBps('ALL_GATHER', 8, 4 * GiB, collectiveMs(h100, 'ALL_GATHER', NODE, 4 * GiB)),
    ).toBeGreaterThan(368);
  });

  it('a medium message lies between: latency-bound below, bandwidth-bound above (1 MiB on 8 H100s)', () => {
    const ms = collectiveMs(h100, 'ALL_REDUCE', NODE, 2 ** 20);
    // LL: 15 µs of latency plus the bytes at its 141 GB/s ceiling.
    expect(ms).toBeCloseTo(0.015 + (1.75 * 2 ** 20) / 141e6, 12);
    expect(busGBps('ALL_REDUCE', 8, 2 ** 20, ms)).toBeLessThan(100);
  });

  it('time and bus bandwidth never fall as the message grows, on every preset, op and placement', () => {
    for (const cost of [h100, a100])
      for (const devices of [NODE, [0, 1], TWO_NODES, ONE_PER_NODE, Array.from({ length: 512 }, (_, i) => i)])
        for (const op of ['ALL_REDUCE', 'REDUCE_SCATTER', 'ALL_GATHER'] as const) {
          let last = { ms: 0, bus: 0 };
          for (let log = 0; log <= 34; log++) {
            const bytes = 2 ** log;
            const ms = collectiveMs(cost, op, devices, bytes);
            const bus = busGBps(op, devices.length, bytes, ms);
            expect(ms).toBeGreaterThanOrEqual(last.ms);
            expect(bus).toBeGreaterThanOrEqual(last.bus * (1 - 1e-12));
            last = { ms, bus };
          }
        }
  });

  it('eight GPUs on eight nodes are slower than eight in one node, at every size', () => {
    for (const cost of [h100, a100])
      for (const op of ['ALL_REDUCE', 'ALL_GATHER'] as const)
        for (const bytes of [8, 2 ** 16, 2 ** 20, 2 ** 24, 2 ** 28, 2 ** 32])
          expect(collectiveMs(cost, op, ONE_PER_NODE, bytes)).toBeGreaterThan(
            collectiveMs(cost, op, NODE, bytes),
          );
  });

  it('across nodes a small all-reduce takes the tree (log2 of the nodes), a large one the ring', () => {
    const profile = NCCL_PROFILES['dgx-h100']!;
    const wide = groupSpan(
      h100,
      Array.from({ length: 512 }, (_, i) => i),
    );
    const bus = ringLink(h100, wide).bytesPerMs;
    expect(ncclChoice(profile, 'ALL_REDUCE', wide, bus, 2 ** 16).algorithm).toBe('tree');
    const two = groupSpan(h100, TWO_NODES);
    expect(ncclChoice(profile, 'ALL_REDUCE', two, ringLink(h100, two).bytesPerMs, 4 * GiB)).toMatchObject({
      algorithm: 'ring',
      protocol: 'Simple',
    });
    // The 2-node ring's bus bandwidth: NVLink's 370 GB/s bounds it (8 NICs × 47 = 376). Latency:
    // 28 NVLink steps at max(3.4, 3 × 1 µs of network post) and 2 network steps at 14 µs.
    expect(collectiveMs(h100, 'ALL_REDUCE', TWO_NODES, 4 * GiB)).toBeCloseTo(
      (8.4 + 28 * 3.4 + 2 * 14) * 1e-3 + ((30 / 16) * 4 * GiB) / 370e6,
      12,
    );
  });

  it('a custom cluster with the same links keeps the alpha-beta ring formulas', () => {
    const same = custom({
      kind: 'custom',
      nodes: 2,
      gpusPerNode: 8,
      gpu: { peakTflops: 989, memoryGiB: 80 },
      intraNode: { bandwidthGBps: 370, latencyUs: 3 },
      interNode: { bandwidthGBps: 47, latencyUs: 5 },
    });
    expect(same.nccl).toBeUndefined();
    expect(collectiveMs(same, 'ALL_REDUCE', NODE, 1e8)).toBe(
      allReduceMs(8, 1e8, { bytesPerMs: 370e6, latencyMs: 0.003 }),
    );
    expect(collectiveMs(same, 'ALL_GATHER', NODE, 1e8)).toBe(
      allGatherMs(8, 1e8, { bytesPerMs: 370e6, latencyMs: 0.003 }),
    );
  });

  it('the ideal cluster still times every collective at zero', () => {
    const ideal = resolveCluster({ kind: 'ideal', devices: 8 });
    if (!ideal.ok) throw new Error('expected the ideal cluster');
    expect(collectiveMs(ideal.cost, 'ALL_REDUCE', NODE, 4 * GiB)).toBe(0);
  });
});
