import type * as z from 'zod';
import { formatPath, type Issue, type PathSegment } from './issue.ts';

/** zod's issues, rewritten as `Issue`s whose messages read well next to a path. */
export function fromZod(error: z.ZodError, prefix: readonly PathSegment[] = []): Issue[] {
  const out: Issue[] = [];
  for (const zi of error.issues) {
    const path = [...prefix, ...(zi.path as PathSegment[])];
    if (zi.code === 'unrecognized_keys') {
      for (const key of zi.keys) out.push({ path: formatPath([...path, key]), message: 'unknown field' });
      continue;
    }
    out.push({ path: formatPath(path), message: messageOf(zi) });
  }
  return out;
}

function messageOf(zi: z.core.$ZodIssue): string {
  switch (zi.code) {
    case 'invalid_type': {
      const input = (zi as { input?: unknown }).input;
      if (input !== undefined) return `expected ${zi.expected}, got ${describe(input)}`;
      // zod gives the input only when parsing asked for it (reportInput), but its message always
      // names the type it received: a present field of the wrong type is not a missing one.
      const received = /received (\w+)/.exec(zi.message)?.[1];
      return received === undefined || received === 'undefined'
        ? `required field missing (expected ${zi.expected})`
        : `expected ${zi.expected}, got ${received}`;
    }
    case 'invalid_value':
      return `expected one of ${zi.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return zi.origin === 'array'
        ? `needs at least ${zi.minimum} item(s)`
        : `must be ≥ ${zi.minimum}${zi.inclusive ? '' : ' (exclusive)'}`;
    case 'too_big':
      return zi.origin === 'array' ? `at most ${zi.maximum} item(s)` : `must be ≤ ${zi.maximum}`;
    default:
      return zi.message;
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 30 ? `${v.slice(0, 30)}…` : v)}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}` : `number ${v}`;
  return typeof v;
}
