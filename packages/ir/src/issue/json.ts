import type { Issue } from './issue.ts';

export type JsonResult = { ok: true; value: unknown } | { ok: false; errors: Issue[] };

/** JSON.parse with a message that says where (line and column) the text stops being JSON. */
export function parseJsonText(text: string, maxDepth = 64): JsonResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const m = /position (\d+)/.exec(msg);
    let where = '';
    if (m) {
      const pos = Number(m[1]);
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const col = pos - before.lastIndexOf('\n');
      where = ` at line ${line}, column ${col}`;
    } else if (text.trim() === '') {
      where = ': the input is empty';
    }
    const reason = msg.replace(/^Unexpected /, 'unexpected ').replace(/ in JSON at position \d+.*$/, '');
    return {
      ok: false,
      errors: [{ path: '', message: `invalid JSON${where}${where.startsWith(':') ? '' : `: ${reason}`}` }],
    };
  }
  const depth = jsonDepth(value, maxDepth);
  if (depth > maxDepth)
    return { ok: false, errors: [{ path: '', message: `JSON nesting deeper than ${maxDepth} levels` }] };
  return { ok: true, value };
}

/** Depth of a parsed JSON value, stopping once `limit` is exceeded so hostile input costs little. */
export function jsonDepth(value: unknown, limit = 64): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}
