import { describe, expect, it } from 'vitest';
import { TWO_NODES_OF_4 } from '../test/testPlans.ts';
import {
  allGatherMs,
  allReduceMs,
  allToAllMs,
  collectiveMs,
  HOST_LINK,
  hostTransferMs,
  type Link,
  p2pMs,
  reduceScatterMs,
  resolveCluster,
} from './costModel.ts';

const link: Link = { bytesPerMs: 1e6, latencyMs: 0.01 }; // 1 GB/s, 10 µs

const cluster = TWO_NODES_OF_4;

function cost() {
  const r = resolveCluster(cluster);
  if (!r.ok) throw new Error('unexpected');
  return r.cost;
}

describe('cost model', () => {
  it('ring all-reduce moves 2(n−1)/n of the buffer and pays 2(n−1) latencies', () => {
    expect(allReduceMs(4, 4e6, link)).toBeCloseTo(1.5 * 4 + 6 * 0.01, 12);
  });

  it('reduce-scatter, all-gather and all-to-all move (n−1)/n of the buffer and pay n−1 latencies', () => {
    for (const f of [reduceScatterMs, allGatherMs, allToAllMs])
      expect(f(4, 4e6, link)).toBeCloseTo(3 + 0.03, 12);
  });

  it('a collective of one device takes no time', () => {
    expect(allReduceMs(1, 1e9, link)).toBe(0);
  });

  it('a collective inside one node uses the intra-node link, across nodes one ring channel per NIC', () => {
    const c = cost();
    expect(collectiveMs(c, 'ALL_REDUCE', [0, 1, 2, 3], 4e8)).toBeCloseTo(
      allReduceMs(4, 4e8, { bytesPerMs: 4e8, latencyMs: 0.005 }),
      12,
    );
    // Two members per node: the ring leaves each node through their two NICs (2 × 50 GB/s).
    expect(collectiveMs(c, 'ALL_REDUCE', [2, 3, 4, 5], 4e8)).toBeCloseTo(
      allReduceMs(4, 4e8, { bytesPerMs: 1e8, latencyMs: 0.02 }),
      12,
    );
    // One member per node: its one NIC.
    expect(collectiveMs(c, 'ALL_REDUCE', [0, 4], 4e8)).toBeCloseTo(
      allReduceMs(2, 4e8, { bytesPerMs: 5e7, latencyMs: 0.02 }),
      12,
    );
  });

  it('an all-reduce of 352 MB over 16 GPUs on 2 DGX H100 nodes runs at 8 NICs × 50 GB/s, about 1.65 ms', () => {
    const r = resolveCluster({ preset: 'dgx-h100', nodes: 2 });
    if (!r.ok) throw new Error('unexpected');
    const devices = Array.from({ length: 16 }, (_, i) => i);
    const ms = collectiveMs(r.cost, 'ALL_REDUCE', devices, 352e6);
    // 2 · 15/16 · 352 MB / 400 GB/s = 1.65 ms, plus 2 · 15 latencies of 5 µs.
    expect(ms).toBeCloseTo(1.65 + 0.15, 6);
    expect(ms).toBeLessThan(2);
    // Reduce-scatter and all-gather are each half of it.
    expect(collectiveMs(r.cost, 'REDUCE_SCATTER', devices, 352e6)).toBeCloseTo(0.825 + 0.075, 6);
    expect(collectiveMs(r.cost, 'ALL_GATHER', devices, 352e6)).toBeCloseTo(0.825 + 0.075, 6);
  });

  it('point to point picks the link by node: device / gpusPerNode', () => {
    const c = cost();
    expect(p2pMs(c, 3, 2, 4e8)).toBeCloseTo(1 + 0.005, 12);
    expect(p2pMs(c, 3, 4, 5e7)).toBeCloseTo(1 + 0.02, 12);
  });

  it('without an achievable fraction compute runs at peak', () => {
    const c = cost();
    expect(c.kind === 'custom' && c.flopsPerMs).toBe(1e15 / 1e3);
  });

  it('the ideal cluster charges its fixed p2p latency and nothing for collectives', () => {
    const r = resolveCluster({ kind: 'ideal', devices: 2, p2pLatencyMs: 0.25 });
    if (!r.ok) throw new Error('unexpected');
    expect(p2pMs(r.cost, 0, 1, 1e12)).toBe(0.25);
    expect(collectiveMs(r.cost, 'ALL_TO_ALL', [0, 1], 1e12)).toBe(0);
  });

  it('copies to and from the host take 10 µs + bytes at 25 GB/s (PCIe Gen4 x16)', () => {
    expect(hostTransferMs(cost(), 25e6)).toBeCloseTo(1 + 0.01, 12);
    expect(HOST_LINK).toEqual({ bytesPerMs: 25e6, latencyMs: 0.01 });
  });

  it("an all-to-all across nodes sends the off-node half through each member's NIC and the rest over NVLink at once", () => {
    const c = cost();
    // 8 members over 2 nodes of 4: max((3/8) · 8e8 / 4e8, (4/8) · 8e8 / 5e7) + 7 · 20 µs.
    expect(collectiveMs(c, 'ALL_TO_ALL', [0, 1, 2, 3, 4, 5, 6, 7], 8e8)).toBeCloseTo(8 + 0.14, 12);
  });
});
