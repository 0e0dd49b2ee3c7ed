// `node scripts/longFunctions.mjs`: lists the non-test source functions longer than LIMIT lines
// (issue 32: units a person can hold in mind) and fails when one is not in docs/long-functions.md
// with its reason, or when that list names a function that is no longer long. Parses with the
// TypeScript compiler the repository already uses: no dependency of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ROOT } from './ensure.mjs';

/** Issue 32's bound: "no non-test source function over ~120 lines". */
export const LIMIT = 120;

/** The documented exceptions, relative to the repository root. */
export const EXCEPTIONS_FILE = 'docs/long-functions.md';

const SOURCE_ROOTS = ['packages', 'apps'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test', '.turbo']);

/** Source files of every package and app (`src/`, `bin/`), tests left out. */
export function sourceFiles(root = ROOT) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path);
      } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !/\.test\.tsx?$|\.d\.ts$/.test(entry.name)) {
        out.push(path);
      }
    }
  };
  for (const top of SOURCE_ROOTS)
    for (const pkg of readdirSync(join(root, top), { withFileTypes: true }))
      if (pkg.isDirectory())
        for (const sub of ['src', 'bin']) {
          try {
            walk(join(root, top, pkg.name, sub));
          } catch (e) {
            if (e.code !== 'ENOENT') throw e;
          }
        }
  return out.sort();
}

/** The name a reader would search for: `lowerPlanPass.run`, `moveOp`, `ColumnWriter.lowerGroup`. */
function nameOf(node) {
  const own =
    node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : '';
  let owner = '';
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isClassLike(p) && p.name) {
      owner = p.name.text;
      break;
    }
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) {
      owner = p.name.text;
      break;
    }
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && !own) {
      owner = p.name.text;
      break;
    }
    if ((ts.isFunctionDeclaration(p) || ts.isMethodDeclaration(p)) && p.name) {
      owner = p.name.getText();
      break;
    }
  }
  if (ts.isConstructorDeclaration(node)) return `${owner}.constructor`;
  if (own && owner && owner !== own) return `${owner}.${own}`;
  return own || owner || '(anonymous)';
}

/** Every function in `text` longer than `limit` lines: { name, line, lines }. */
export function longFunctionsIn(text, fileName, limit = LIMIT) {
  const kind = fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.end).line;
      const lines = end - start + 1;
      if (lines > limit) out.push({ name: nameOf(node), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * The documented exceptions: the rows of the first table in `text` whose first cell is
 * `` `path` `` and second `` `name` ``, keyed `path name`.
 */
export function documentedExceptions(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|[^|]*\|\s*(.*?)\s*\|\s*$/.exec(line);
    if (m) out.set(`${m[1]} ${m[2]}`, m[3]);
  }
  return out;
}

/** What is wrong with the tree at `root`: functions over the limit not documented, and stale entries. */
export function checkLongFunctions(root = ROOT, limit = LIMIT) {
  const found = [];
  for (const file of sourceFiles(root)) {
    const path = relative(root, file).split('\\').join('/');
    for (const f of longFunctionsIn(readFileSync(file, 'utf8'), file, limit)) found.push({ path, ...f });
  }
  let documented = new Map();
  try {
    documented = documentedExceptions(readFileSync(join(root, EXCEPTIONS_FILE), 'utf8'));
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
  }
  const problems = [];
  const seen = new Set();
  for (const f of found) {
    const key = `${f.path} ${f.name}`;
    seen.add(key);
    if (!documented.has(key))
      problems.push(
        `${f.path}:${f.line}: ${f.name} is ${f.lines} lines (over ${limit}) and not listed in ${EXCEPTIONS_FILE}`,
      );
  }
  for (const key of documented.keys())
    if (!seen.has(key))
      problems.push(
        `${EXCEPTIONS_FILE}: ${key} is listed but is no longer over ${limit} lines; drop its row`,
      );
  return { found, problems };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { found, problems } = checkLongFunctions();
  for (const f of found) console.log(`${f.lines}\t${f.path}:${f.line}\t${f.name}`);
  console.log(`${found.length} function(s) over ${LIMIT} lines`);
  for (const p of problems) console.error(p);
  process.exit(problems.length > 0 ? 1 : 0);
}
