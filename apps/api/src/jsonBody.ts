/**
 * The only body parser: JSON, bounded in depth, without `__proto__` keys. Anything that is not
 * `application/json` is refused by Fastify with a 415 before it gets here.
 */
import { formatPath, type PathSegment, parseJsonText } from '@stagecraft/ir';
import { ApiError } from './errors.ts';

/** Parses a request body; throws an ApiError(400) naming where the text stops being acceptable. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  const parsed = parseJsonText(text, maxDepth);
  if (!parsed.ok) throw new ApiError(400, parsed.errors);
  const poisoned = protoKey(parsed.value);
  if (poisoned !== undefined) {
    throw new ApiError(400, { path: poisoned, message: 'the key "__proto__" is not allowed in a body' });
  }
  return parsed.value;
}

/** Path of the first `__proto__` key (a prototype-pollution vector), if any. */
function protoKey(value: unknown): string | undefined {
  const stack: [unknown, PathSegment[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        if (x !== null && typeof x === 'object') stack.push([x, [...path, i]]);
      });
      continue;
    }
    for (const k of Object.keys(v)) {
      if (k === '__proto__') return formatPath([...path, k]);
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') stack.push([x, [...path, k]]);
    }
  }
  return undefined;
}
