/**
 * An `Issue` is how every layer reports bad input: a path into the document the user wrote and a
 * reason they can act on. Paths print as `directives[3].filter.PP`.
 */
export type PathSegment = string | number;

export interface Issue {
  /** Printed path into the input document, e.g. `directives[3].filter.PP` (empty for the whole document). */
  path: string;
  message: string;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

export function issue(path: readonly PathSegment[] | string, message: string): Issue {
  return { path: typeof path === 'string' ? path : formatPath(path), message };
}

/** `error: <path>: <reason>`, the one-line form the CLI prints and tests assert on. */
export function formatIssue(i: Issue): string {
  return i.path ? `${i.path}: ${i.message}` : i.message;
}

/**
 * Thrown inside passes to abort compilation with user-facing issues. The pass manager catches it
 * and returns the issues as a value; nothing else may escape to the user.
 */
export class CompileError extends Error {
  readonly issues: Issue[];
  constructor(issues: Issue[] | Issue) {
    const list = Array.isArray(issues) ? issues : [issues];
    super(list.map(formatIssue).join('\n'));
    this.name = 'CompileError';
    this.issues = list;
  }
}

export type Result<T> = { ok: true; value: T } | { ok: false; errors: Issue[] };
