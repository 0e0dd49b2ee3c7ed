/**
 * The issues one reading of a plan finds, up to a cap: a plan broken in one place is often broken
 * in thousands (every wait for a renamed instruction), and its reader needs the first few. The
 * count goes on past the cap, so a check can still ask whether anything was found.
 */
import type { Issue } from '../issue/issue.ts';

export class IssueList {
  readonly list: Issue[] = [];
  count = 0;

  constructor(readonly max: number) {}

  add(path: string, message: string): void {
    if (this.count++ < this.max) this.list.push({ path, message });
  }
}
