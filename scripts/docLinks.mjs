// `node scripts/docLinks.mjs`: every relative link of README.md and docs/*.md names a file that
// exists and, with `#anchor`, a heading of that file, so moving a section (issue 32: the README's
// design format to docs/design-format.md) cannot leave a reader at a dead link.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './ensure.mjs';

/** The Markdown files users read: the README and docs/. */
export function documents(root = ROOT) {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...docs.sort()];
}

/**
 * The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped (hyphens
 * and underscores kept), each space a hyphen, repeats numbered `-1`, `-2`.
 */
export function anchorsOf(markdown) {
  const out = new Set();
  const seen = new Map();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a Markdown text, code spans and fenced blocks left out: { target, line }. */
export function linksOf(markdown) {
  const out = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}

/** Every dead relative link of `files`, as `file:line: link: what is missing`. */
export function deadLinks(files, root = ROOT) {
  const problems = [];
  const anchors = new Map();
  const anchorsIn = (path) => {
    if (!anchors.has(path)) anchors.set(path, anchorsOf(readFileSync(path, 'utf8')));
    return anchors.get(path);
  };
  for (const file of files) {
    const where = relative(root, file).split('\\').join('/');
    for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
      const [path, anchor] = target.split('#', 2);
      const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(resolved)) {
        problems.push(`${where}:${line}: ${target}: no file ${relative(root, resolved)}`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsIn(resolved).has(anchor))
        problems.push(`${where}:${line}: ${target}: ${relative(root, resolved)} has no heading #${anchor}`);
    }
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = deadLinks(documents());
  for (const p of problems) console.error(p);
  console.log(problems.length === 0 ? 'every link resolves' : `${problems.length} dead link(s)`);
  process.exit(problems.length > 0 ? 1 : 0);
}
