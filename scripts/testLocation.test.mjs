import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { misplacedTests } from './testLocation.mjs';

describe('where tests sit', () => {
  test("a test in a package's test/ folder is named; fixtures there and tests in src/ are not", () => {
    const root = mkdtempSync(join(tmpdir(), 'test-location-'));
    try {
      for (const dir of ['packages/p/src', 'packages/p/test/deep', 'apps/a/test'])
        mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, 'packages/p/src/x.test.ts'), '');
      writeFileSync(join(root, 'packages/p/test/designs.ts'), '');
      writeFileSync(join(root, 'packages/p/test/deep/y.property.test.ts'), '');
      writeFileSync(join(root, 'apps/a/test/z.test.tsx'), '');
      expect(misplacedTests(root)).toEqual([
        'apps/a/test/z.test.tsx',
        'packages/p/test/deep/y.property.test.ts',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('every test of this repository sits in src/, where Vitest looks for it', () => {
    expect(misplacedTests()).toEqual([]);
  });
});
