import { describe, expect, it } from 'vitest';
import { gainOver1F1B, largestGain, TABLE_4, TABLE_6 } from './zeroBubbleTables.ts';

describe("the Zero Bubble paper's tables as transcribed", () => {
  it('give the abstract\'s "up to" figures as their largest gains, within a point of rounding', () => {
    const relaxed = largestGain(TABLE_4, 'ZB-2p');
    expect([relaxed.model, relaxed.p, relaxed.m]).toEqual(['28.3B', 32, 96]);
    expect(Math.abs(gainOver1F1B(relaxed, 'ZB-2p') - 0.31)).toBeLessThan(0.01);
    const similar = largestGain(TABLE_6, 'ZB-V');
    expect([similar.model, similar.p, similar.m]).toEqual(['28.3B', 32, 96]);
    expect(Math.abs(gainOver1F1B(similar, 'ZB-V') - 0.23)).toBeLessThan(0.01);
  });

  it('refuse a schedule a setting did not run', () => {
    expect(() => gainOver1F1B(TABLE_6[0]!, 'ZB-2p')).toThrow(/6\.2B p=16 m=48: no ZB-2p/);
  });
});
