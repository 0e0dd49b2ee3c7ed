import { describe, expect, it } from 'vitest';
import { exportFileName, fileStem } from './exportName.ts';

describe('export file names', () => {
  it('differ by format, compute-only and with-comms CSVs included', () => {
    const names = (
      [
        'chrome-trace',
        'torch-csv-compute_only',
        'torch-csv-compute_comms',
        'piper',
        'plan',
        'design',
      ] as const
    ).map((k) => exportFileName('1F1B, p=4, m=8', k));
    expect(names).toEqual([
      '1F1B-p4-m8-trace.json',
      '1F1B-p4-m8-compute.csv',
      '1F1B-p4-m8-comms.csv',
      '1F1B-p4-m8-piper.json',
      '1F1B-p4-m8-plan.json',
      '1F1B-p4-m8.json',
    ]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('are sanitised the same way for every format: no space, slash, quote or leading dot', () => {
    expect(fileStem('../Pipeline “α” / test')).toBe('Pipeline-test');
    expect(fileStem('Déjà vu')).toBe('Deja-vu');
    for (const name of ['a/b\\c', ' "quoted" ', 'tab\there', '.hidden', 'ZB-H1 + split (v2)']) {
      const stem = fileStem(name);
      expect(stem).toMatch(/^[A-Za-z0-9_+][A-Za-z0-9._+-]*$/);
    }
    expect(fileStem('ZB-H1 + split (v2)')).toBe('ZB-H1-+-split-v2');
  });

  it('fall back to "design" for a name with nothing usable, and stay short', () => {
    expect(exportFileName('“”/', 'plan')).toBe('design-plan.json');
    expect(fileStem('x'.repeat(500))).toHaveLength(100);
  });
});
