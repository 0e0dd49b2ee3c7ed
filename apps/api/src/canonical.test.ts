import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { example } from '../test/harness.ts';
import { canonicalJson, contentHash } from './canonical.ts';

/**
 * Writes `key` as an own property: a plain assignment of `__proto__` (a key JSON.parse keeps and the
 * generator produces) would set the copy's prototype instead and drop the key.
 */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Keys sorted at every level, through JSON.parse / JSON.stringify: what canonical means. */
function sortedCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedCopy);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) put(out, k, sortedCopy((v as Record<string, unknown>)[k]));
  return out;
}

/** Objects with the same entries in another insertion order. */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) put(out, k, reversedKeys((v as Record<string, unknown>)[k]));
  return out;
}

describe('the canonical form of a design', () => {
  test('is JSON with the keys sorted, whatever order the client wrote them in', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        // Integer-like keys come first in any object, so compare with the parsed text, not the string.
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(canonicalJson(reversedKeys(v))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300, examples: [[{ ['__proto__']: '', a: 1 }]] },
    );
  });

  test('leaves out undefined fields, as JSON does, and keeps the hash of a design stable', () => {
    const d = example('1f1b-p4-m8');
    expect(canonicalJson({ b: 1, a: undefined, c: [undefined, 2] })).toBe('{"b":1,"c":[null,2]}');
    expect(canonicalJson(d)).toBe(JSON.stringify(sortedCopy(d)));
    expect(contentHash(reversedKeys(d))).toBe(contentHash(d));
  });
});
