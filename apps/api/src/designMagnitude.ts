/**
 * Numbers in a design are bounded before it compiles: a cost of 1e308 is a finite number JSON
 * carries, but the simulation's sums of such costs overflow to Infinity, which JSON cannot carry
 * (the answer's metrics read `null`). No real cost, size or rate comes near the bound in a
 * design's units (ms, bytes, GB/s, TFLOPS), and sums of a million such values stay finite.
 */
import { formatPath, type Issue, type PathSegment } from '@stagecraft/ir';

export const MAX_MAGNITUDE = 1e30;

/** Every number in `value` above the bound in size, as issues at their paths under `root`. */
export function magnitudeIssues(value: unknown, root: PathSegment[]): Issue[] {
  const issues: Issue[] = [];
  const stack: [unknown, PathSegment[]][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number') {
      if (Math.abs(v) > MAX_MAGNITUDE) {
        issues.push({
          path: formatPath(path),
          message: `${v} is too large: numbers in a design must be at most 1e30 in size, so the simulation's totals stay finite`,
        });
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, i]]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push([(v as Record<string, unknown>)[keys[i]!], [...path, keys[i]!]]);
      }
    }
  }
  return issues;
}

/** The path of the first number in `value` that is not finite, if any. */
export function nonFinitePath(value: unknown, root: PathSegment[]): string | undefined {
  const stack: [unknown, PathSegment[]][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return formatPath(path);
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'number' || (x !== null && typeof x === 'object')) {
          stack.push([x, [...path, Array.isArray(v) ? Number(k) : k]]);
        }
      }
    }
  }
  return undefined;
}
