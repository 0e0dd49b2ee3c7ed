import { describe, expect, it } from 'vitest';
import { deviceGroupLabel, deviceGroupSummary, deviceListText } from './deviceList.ts';

describe('device lists', () => {
  it('write runs of three or more consecutive devices as a range', () => {
    expect(deviceListText(Array.from({ length: 128 }, (_, i) => i))).toBe('0–127');
    expect(deviceListText([0, 1, 2, 3, 8, 9, 10, 11])).toBe('0–3, 8–11');
  });

  it('keep single devices, pairs and strided groups as numbers', () => {
    expect(deviceListText([5])).toBe('5');
    expect(deviceListText([0, 1])).toBe('0, 1');
    expect(deviceListText([0, 128, 256])).toBe('0, 128, 256');
    expect(deviceListText([0, 1, 2, 7])).toBe('0–2, 7');
  });

  it('name a group by how many devices it has', () => {
    expect(deviceGroupLabel([3])).toBe('device 3');
    expect(deviceGroupLabel([4, 5, 6, 7])).toBe('devices 4–7');
  });

  it('summarise a group strided over the cluster on one short line: how many runs, of what, where', () => {
    // Llama 3 405B's stage 0: device = 128 dp + tp, dp 0–63, tp 0–7.
    const stage = Array.from({ length: 64 }, (_, dp) =>
      Array.from({ length: 8 }, (_, tp) => 128 * dp + tp),
    ).flat();
    expect(deviceGroupSummary(stage, { name: 'tp', size: 8 })).toBe(
      '64 × tp8 groups: devices 0–7, 128–135, …, 8064–8071',
    );
    expect(deviceGroupSummary(stage)).toBe('64 × runs of 8: devices 0–7, 128–135, …, 8064–8071');
    // Single devices strided: counted.
    expect(deviceGroupSummary([0, 16, 32, 48, 64, 80])).toBe('6 devices: 0, 16, …, 80');
    // A short list stays as it is.
    expect(deviceGroupSummary([0, 1, 2, 3, 8, 9, 10, 11], { name: 'tp', size: 4 })).toBe('devices 0–3, 8–11');
  });
});
