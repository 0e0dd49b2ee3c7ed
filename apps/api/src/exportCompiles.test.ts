/**
 * An export request compiles its design once: the compile that checks the design and its size is
 * the one the file is written from. Every compile goes through the driver's `compile`, whatever
 * module calls it, so counting its calls counts compiles.
 */
import type { Design } from '@stagecraft/ir';
import { beforeEach, expect, test, vi } from 'vitest';
import { example } from '../test/harness.ts';
import { exportFile } from './exportFile.ts';

const compiled = vi.hoisted(() => [] as Design[]);

vi.mock('../../../packages/passes/src/compile/compile.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../packages/passes/src/compile/compile.ts')>();
  return {
    ...actual,
    compile: (...args: Parameters<typeof actual.compile>) => {
      compiled.push(args[0]);
      return actual.compile(...args);
    },
  };
});

beforeEach(() => {
  compiled.length = 0;
});

test.each(['plan', 'torch-csv', 'chrome-trace'] as const)(
  'a %s export compiles the design once',
  (format) => {
    const design = example('zb-h1-p4-m8');
    expect(exportFile(design, format, {}, 1_000_000).ok).toBe(true);
    expect(compiled).toEqual([design]);
  },
);

test('a piper export compiles the design once, and the Piper program once to prove it', () => {
  const design = example('zb-h1-p4-m8');
  expect(exportFile(design, 'piper', {}, 1_000_000).ok).toBe(true);
  expect(compiled).toHaveLength(2);
  expect(compiled[0]).toBe(design);
});
