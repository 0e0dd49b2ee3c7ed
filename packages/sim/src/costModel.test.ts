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

  it('a collective inside one node uses the intra-node link, across nodes the slower inter-node link', () => {
    const c = cost();
    expect(collectiveMs(c, 'ALL_REDUCE', [0, 1, 2, 3], 4e8)).toBeCloseTo(
      allReduceMs(4, 4e8, { bytesPerMs: 4e8, latencyMs: 0.005 }),
      12,
    );
    expect(collectiveMs(c, 'ALL_REDUCE', [2, 3, 4, 5], 4e8)).toBeCloseTo(
      allReduceMs(4, 4e8, { bytesPerMs: 5e7, latencyMs: 0.02 }),
      12,
    );
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

  it('an all-to-all across nodes pays the inter-node link for the (n−1)/n that leaves each member', () => {
    const c = cost();
    // 8 members over 2 nodes of 4: (7/8) · 8e8 / 5e7 + 7 · 20 µs.
    expect(collectiveMs(c, 'ALL_TO_ALL', [0, 1, 2, 3, 4, 5, 6, 7], 8e8)).toBeCloseTo(14 + 0.14, 12);
  });
});
