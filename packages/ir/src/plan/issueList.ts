/**
 * The issues one reading of a plan finds, up to a cap: a plan broken in one place is often broken
 * in thousands (every wait for a renamed instruction), and its reader needs the first few. The
 * count goes on past the cap, so a check can still ask whether anything was found.
 */
import type { Issue } from '../issue/issue.ts';

/**
 * Issues a file reader lists before it only counts: the API answers with as many (apps/api's
 * MAX_ISSUES), and a 63 MB trace of bad durations once printed a million lines.
 */
export const MAX_LISTED_ISSUES = 100;

export class IssueList {
  readonly list: Issue[] = [];
  count = 0;

  constructor(readonly max: number = MAX_LISTED_ISSUES) {}

  add(path: string, message: string): void {
    if (this.count++ < this.max) this.list.push({ path, message });
  }

  push(i: Issue): void {
    this.add(i.path, i.message);
  }

  /** The issues kept and, past the cap, one more saying how many were found in all. */
  issues(): Issue[] {
    if (this.count <= this.max) return this.list;
    const more = (this.count - this.max).toLocaleString('en-US');
    return [
      ...this.list,
      { path: '', message: `… and ${more} more problems (${this.count.toLocaleString('en-US')} in all)` },
    ];
  }
}
