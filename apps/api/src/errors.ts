/**
 * Every error the API answers is `{"error": {path, message}}` (plus `errors` when a design has
 * several problems) with a 4xx or 503 status: a path into the request body and a reason the
 * caller can act on, never a stack trace.
 */
import type { Issue } from '@stagecraft/ir';

export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 422 | 500 | 503 | 507;

/** A failure a route answers with; thrown inside handlers, turned into a reply by the error handler. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly issues: Issue[];
  /** Sent as Retry-After with a 503 for a busy server. */
  readonly retryAfterS: number | undefined;
  constructor(status: ErrorStatus, issues: Issue[] | Issue, retryAfterS?: number) {
    const list = Array.isArray(issues) ? issues : [issues];
    super(list[0]?.message ?? 'error');
    this.name = 'ApiError';
    this.status = status;
    this.issues = list.length > 0 ? list : [{ path: '', message: 'error' }];
    this.retryAfterS = retryAfterS;
  }
}

export interface ErrorBody {
  error: Issue;
  errors?: Issue[];
  /** All the issues found, when `errors` holds only the first of them. */
  errorCount?: number;
}

/** Issues an answer lists; past them only their count (100,000 bad directives once made a 20 MB answer). */
export const MAX_ISSUES = 100;
/** Longest path or message sent: messages quote the input, which may be megabytes long. */
const MAX_TEXT = 500;

export function errorBody(issues: readonly Issue[]): ErrorBody {
  const listed = issues.slice(0, MAX_ISSUES).map(bounded);
  const first = listed[0] ?? { path: '', message: 'error' };
  if (issues.length <= 1) return { error: first };
  return issues.length > MAX_ISSUES
    ? { error: first, errors: listed, errorCount: issues.length }
    : { error: first, errors: listed };
}

function bounded(issue: Issue): Issue {
  const cut = (s: string) =>
    s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}… (${s.length.toLocaleString('en-US')} characters)` : s;
  return { path: cut(issue.path), message: cut(issue.message) };
}

/**
 * An issue about a part of the body, re-rooted at the body: `directives[3]` of the field `design`
 * is `design.directives[3]`; the whole design (`""`) is `design`.
 */
export function underPath(prefix: string, issue: Issue): Issue {
  if (prefix === '') return issue;
  if (issue.path === '') return { path: prefix, message: issue.message };
  const sep = issue.path.startsWith('[') ? '' : '.';
  return { path: `${prefix}${sep}${issue.path}`, message: issue.message };
}
