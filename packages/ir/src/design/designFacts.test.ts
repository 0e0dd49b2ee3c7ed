import { describe, expect, test } from 'vitest';
import { CompileError } from '../issue/issue.ts';
import type { Cluster } from './cluster.ts';
import { clusterDevices, deviceCount, scheduleOpEstimate, scheduleRanks } from './designFacts.ts';

const custom: Cluster = {
  kind: 'custom',
  nodes: 3,
  gpusPerNode: 4,
  gpu: { peakTflops: 100, memoryGiB: 40 },
  intraNode: { bandwidthGBps: 100, latencyUs: 1 },
  interNode: { bandwidthGBps: 10, latencyUs: 5 },
};

describe('deviceCount', () => {
  test('an ideal cluster has the devices it names', () => {
    expect(deviceCount({ kind: 'ideal', devices: 6 })).toBe(6);
  });

  test('a custom cluster has nodes × GPUs per node', () => {
    expect(deviceCount(custom)).toBe(12);
  });

  test('a preset cluster has its node’s GPUs on each node', () => {
    expect(deviceCount({ preset: 'dgx-h100', nodes: 2 })).toBe(16);
  });

  test('an unknown preset has no devices to count, and says which presets there are', () => {
    const r = clusterDevices({ preset: 'dgx-z9', nodes: 2 });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.errors[0]!.message).toContain('dgx-h100');
    expect(() => deviceCount({ preset: 'dgx-z9', nodes: 2 })).toThrow(CompileError);
  });
});

describe('scheduleRanks', () => {
  const cluster: Cluster = { kind: 'ideal', devices: 8 };

  test('ranks as given, else one per device group, else one per device', () => {
    expect(scheduleRanks({ ranks: 2, groups: [[0], [1], [2]] }, cluster)).toBe(2);
    expect(
      scheduleRanks(
        {
          groups: [
            [0, 1],
            [2, 3],
            [4, 5],
          ],
        },
        cluster,
      ),
    ).toBe(3);
    expect(scheduleRanks({}, cluster)).toBe(8);
  });
});

describe('scheduleOpEstimate', () => {
  test('three passes per block and microbatch, and a SEND and a RECV each way between blocks', () => {
    expect(scheduleOpEstimate(8, 4, 4)).toBe(8 * (3 * 4 + 4 * 3));
  });

  test('one rank sends nothing', () => {
    expect(scheduleOpEstimate(8, 4, 1)).toBe(8 * 3 * 4);
  });
});
