/**
 * Errors point at their cause. The compiler reports an error where it surfaces: after the user
 * edits a split_backward's filter, a later `order` "matches no op", and that order is not what the
 * user touched. The editor keeps the compiler's paths (they say where it failed) and also shows
 * each such error at the directives the user edited since the design last compiled: the suspects.
 * A suspect is remembered by identity, not index: edits copy only what they change, so the
 * directive object outlives moves and inserts around it, and a new edit of it is a new suspect.
 */
import type { Design, Directive, Filter, Issue } from '@stagecraft/ir';
import { filterText } from './directiveSummary.ts';

/** The directive an edit is about: the one it selects, else the one directive it made anew. */
export function touchedDirective(before: Design, after: Design, select?: number): Directive | undefined {
  if (select !== undefined) return after.directives[select];
  const old = new Set(before.directives);
  const made = after.directives.filter((d) => !old.has(d));
  return made.length === 1 ? made[0] : undefined;
}

/** The index of the directive a compiler path lies in (`directives[3].filters[2][0]` → 3). */
export function directiveOfPath(path: string): number | undefined {
  const m = /^directives\[(\d+)\]/.exec(path);
  return m ? Number(m[1]) : undefined;
}

/**
 * The errors each suspect caused elsewhere, by the suspect's index in `design`: every error that
 * lies outside the suspects (an error in a suspect is its own, shown there already).
 */
export function causedErrors(
  errors: readonly Issue[],
  design: Design,
  suspects: readonly Directive[],
): Map<number, Issue[]> {
  const at = [...new Set(suspects.map((d) => design.directives.indexOf(d)).filter((i) => i >= 0))];
  const caused = new Map<number, Issue[]>();
  if (at.length === 0) return caused;
  const downstream = errors.filter((e) => {
    const j = directiveOfPath(e.path);
    return j === undefined || !at.includes(j);
  });
  if (downstream.length > 0) for (const i of at) caused.set(i, downstream);
  return caused;
}

/**
 * The filter a path of the design points at, as text ("PP=2 MB=0 PASS=B"), so "matches no op"
 * says which op was not found; undefined when the path names no filter of the design (a
 * schedule's expansion is the compiler's, not the design's).
 */
export function filterAtPath(design: Design, path: string): string | undefined {
  let at: unknown = design;
  for (const m of path.matchAll(/\.?([A-Za-z_$][\w$]*)|\[(\d+)\]/g)) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[m[1] ?? Number(m[2])];
  }
  if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined;
  const values = Object.values(at);
  if (values.length === 0 || !values.every((v) => typeof v === 'number' || typeof v === 'string'))
    return undefined;
  return filterText(at as Filter);
}
