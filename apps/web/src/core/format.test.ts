import { describe, expect, it } from 'vitest';
import { formatCount } from './format.ts';

describe('formatCount', () => {
  it('groups thousands as en-US does', () => {
    for (const n of [0, 7, 12, 999, 1000, 1234, 36662, 999999, 1000000, 73294, 123456789, -1, -1234, -999])
      expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  it('writes a planner search space past 2^53 whole, not in exponent form', () => {
    expect(formatCount(1e21)).toBe('1,000,000,000,000,000,000,000');
  });

  it('rounds a fraction to the nearest whole number', () => {
    expect(formatCount(1234.6)).toBe('1,235');
    expect(formatCount(-0.4)).toBe('0');
  });

  it('shows a dash for what is not a number', () => {
    expect(formatCount(Number.NaN)).toBe('—');
    expect(formatCount(Number.POSITIVE_INFINITY)).toBe('—');
  });
});
