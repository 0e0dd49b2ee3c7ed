import { describe, expect, test } from 'vitest';
import { exactFilter, regionFilter } from './dropTarget.ts';

describe('filters derived from a drop target', () => {
  test('a region filter keeps block tags and drops microbatch, direction and pass', () => {
    expect(regionFilter({ PP: 2, EP: 0, MB: 5, DIR: 1, PASS: 'B' })).toEqual({ PP: 2, EP: 0 });
  });

  test('an exact filter names one pass of one microbatch', () => {
    expect(exactFilter({ PP: 2, MB: 5, PASS: 'BW' })).toEqual({ PP: 2, MB: 5, PASS: 'BW' });
  });
});
