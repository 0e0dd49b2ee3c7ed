/** Errors of node:util's parseArgs as the commands print them. */
import { describeAmbiguousValue } from './dashValues.ts';

/** node:util's parse errors, reworded as `<what>: <why>` without its internals. */
export function describeParseError(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const unknown = /^Unknown option '([^']+)'/.exec(msg);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(msg);
  if (missing) return `${missing[1]}: needs a value`;
  const noValue = /^Option '(--[\w-]+)' does not take an argument/.exec(msg);
  if (noValue) return `${noValue[1]}: takes no value`;
  const ambiguous = describeAmbiguousValue(msg);
  if (ambiguous) return ambiguous;
  return msg.split('\n')[0] ?? msg;
}
