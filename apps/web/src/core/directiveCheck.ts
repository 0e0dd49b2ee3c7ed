/**
 * Directives and models checked as the design schema checks them (the zod schemas of
 * @stagecraft/ir, which the API and the CLI parse with too), so a value the inspector takes is
 * one the design keeps, the compiler reads and the API saves: validation agrees everywhere.
 */
import {
  type Design,
  type Directive,
  formatPath,
  type Issue,
  parseDesign,
  parseDirective,
} from '@stagecraft/ir';

/** The schema's issues with `directive` as directives[index] ([] when it is valid). */
export function directiveProblems(directive: Directive, index: number): Issue[] {
  return parseDirective(directive, ['directives', index]).errors;
}

/** Why the schema refuses `value` as the directive's field `key`, or undefined if it takes it. */
export function fieldProblem(directive: Directive, key: string, value: unknown): string | undefined {
  const next = { ...directive, [key]: value } as Record<string, unknown>;
  if (value === undefined) delete next[key];
  const field = formatPath([key]);
  const issue = parseDirective(next, []).errors.find(
    (e) => e.path === field || e.path.startsWith(`${field}.`) || e.path.startsWith(`${field}[`),
  );
  if (!issue) return undefined;
  return issue.path === field ? issue.message : `${issue.path}: ${issue.message}`;
}

/** The schema's issues with the whole design, as the API would answer them. */
export function designProblems(design: Design): Issue[] {
  const r = parseDesign(design);
  return r.ok ? [] : r.errors;
}

/**
 * The schema's issues under `part` (model, cluster, name) of the design with that part replaced.
 * The directives are left out: they do not change, and a program of many thousand order slots
 * would cost a parse on every keystroke of the model form.
 */
export function partProblems(design: Design, part: 'model' | 'cluster' | 'name', value: unknown): Issue[] {
  const head = { ...design, directives: [], [part]: value } as Design;
  return designProblems(head).filter(
    (e) => e.path === part || e.path.startsWith(`${part}.`) || e.path.startsWith(`${part}[`),
  );
}

/** Issues as one line of a refusal. */
export function issuesText(issues: readonly Issue[]): string {
  return issues.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
}
