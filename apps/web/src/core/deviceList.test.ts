import { describe, expect, it } from 'vitest';
import { deviceGroupLabel, deviceListText } from './deviceList.ts';

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
});
