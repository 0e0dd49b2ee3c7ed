import { describe, expect, it } from 'vitest';
import type { DeviceBand, Lane } from './layout.ts';
import { gutterLines, thinBand } from './scene.ts';

const band = (label: string, firstLane: number): DeviceBand =>
  ({ label, lanes: [{ height: firstLane } as Lane] }) as DeviceBand;

describe('device labels in the timeline gutter', () => {
  it('put the device and its stages on two lines when the band has room, so "dev 1152 · PP 6,9" fits', () => {
    expect(gutterLines(band('dev 1152 · PP 6,9', 26))).toEqual(['dev 1152', 'PP 6,9']);
    expect(thinBand(band('dev 1152 · PP 6,9', 26))).toBe(false);
  });

  it('keep one line, in the smaller font, in a compact band', () => {
    expect(gutterLines(band('dev 3 · PP 3,4', 12))).toEqual(['dev 3 · PP 3,4']);
    expect(thinBand(band('dev 3 · PP 3,4', 12))).toBe(true);
  });

  it('leave a device without stages as it is', () => {
    expect(gutterLines(band('dev 7', 26))).toEqual(['dev 7']);
  });
});
