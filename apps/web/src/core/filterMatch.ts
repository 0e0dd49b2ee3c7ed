import type { Filter } from '@stagecraft/ir';

/** Whether a filter selects an op with these tags (conjunctive keys, `*` matches any index). */
export function filterMatches(filter: Filter, tags: Readonly<Record<string, number | string>>): boolean {
  for (const [k, v] of Object.entries(filter)) {
    const t = tags[k];
    if (t === undefined) return false;
    if (v !== '*' && v !== t) return false;
  }
  return true;
}

/** Whether every op `inner` selects is also selected by `outer` (ignoring tags neither names). */
export function filterCovers(outer: Filter, inner: Filter): boolean {
  for (const [k, v] of Object.entries(outer)) {
    const w = inner[k];
    if (w === undefined) return false;
    if (v !== '*' && v !== w) return false;
  }
  return true;
}
