import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { DEFAULT_EXAMPLE, defaultDesign, examples } from './examples.ts';

describe('the bundled examples', () => {
  test('the page starts with the default example, 1F1B p=4 m=8', () => {
    const d = defaultDesign();
    expect(d.name).toMatch(/1F1B/);
    expect(examples().find((e) => e.file === DEFAULT_EXAMPLE)?.design).toEqual(d);
  });

  test('the gallery has every design of examples/, by file name', () => {
    const files = readdirSync(new URL('../../../examples/', import.meta.url))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort((a, b) => a.localeCompare(b));
    expect(examples().map((e) => e.file)).toEqual(files);
    // Validated once: the gallery opened again reads the same list.
    expect(examples()).toBe(examples());
  });
});
