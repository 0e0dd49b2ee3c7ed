/**
 * The import graph of every package's non-test sources, read with TypeScript's own parser, and
 * the rules it must keep:
 * - a folder of `src/` imports only from itself and from the folders its package's README names
 *   for it under "## Floors" (lowest floors need no arrow);
 * - those floors have no loop, so no folder imports, even through others, one that imports it;
 * - no loop of files except through a type-only import (a type-only edge is erased before the
 *   code runs, so it decides no order of evaluation);
 * - a package reaches another only by its name (`@stagecraft/ir`), declared among its
 *   dependencies, and the packages' dependencies have no loop either.
 */
import ts from 'typescript';
import { nodeFs } from './repoFiles.ts';

/** Packages and apps whose sources the rules cover, from the repository root. */
export const PACKAGE_DIRS = [
  'packages/ir',
  'packages/passes',
  'packages/sim',
  'packages/measure',
  'packages/workflow',
  'packages/planner',
  'apps/api',
  'apps/cli',
  'apps/web',
] as const;

export interface ImportEdge {
  /** Importing file, relative to the package's `src/`. */
  readonly from: string;
  /** The specifier as written. */
  readonly specifier: string;
  /** Imported file relative to `src/` for a relative specifier; undefined for a package name. */
  readonly to: string | undefined;
  /** True when every name it brings is a type (`import type`, or each specifier `type`). */
  readonly typeOnly: boolean;
}

const SOURCE = /\.tsx?$/;
const TEST = /\.(test|spec)\.tsx?$|\.property\.test\.tsx?$/;

function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0 || out[out.length - 1] === '..') out.push('..');
      else out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import './x'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The imports of one source text (`file` relative to `src/`): static, re-exports and `import()`. */
export function importsOf(file: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const to = specifier.startsWith('.') ? normalise(`${dirOf(file)}/${specifier}`) : undefined;
    edges.push({ from: file, specifier, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, typeOnlyImport(node));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, typeOnlyExport(node));
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      add(node.arguments[0].text, false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      if (ts.isStringLiteral(lit)) add(lit.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** A package's floors: for each folder (`plan/`) or top-level file (`index.ts`), what it may import. */
export interface Floors {
  /** Where they were read, for messages. */
  readonly source: string;
  readonly may: ReadonlyMap<string, ReadonlySet<string>>;
}

/** `` - `plan/` → `design/`, `memory/` (what it holds) ``: a floor, its arrows and a note. */
const FLOOR_LINE = /^- `([^`]+)`(?:\s*→\s*((?:`[^`]+`)(?:\s*,\s*`[^`]+`)*))?(?:\s+\(.*\))?$/;

/**
 * Reads the "## Floors" section of a package README: one line per floor, `` - `plan/` → `design/`,
 * `memory/` `` and an optional note in parentheses (a lowest floor has no arrow). A line names a
 * folder of `src/` or a single file (`index.ts`, `api/autosave.ts`), which is then a floor of its
 * own; `./` stands for the files at the top of `src/` that no line names. Throws on a malformed section, naming the line.
 */
export function parseFloors(source: string, text: string): Floors {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === '## Floors');
  if (start < 0) throw new Error(`${source}: no "## Floors" section`);
  const may = new Map<string, Set<string>>();
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('#')) break;
    if (!line.startsWith('- ')) continue;
    const m = FLOOR_LINE.exec(line);
    if (!m)
      throw new Error(`${source}:${i + 1}: a floor line reads - \`folder/\` → \`other/\`, …; got "${line}"`);
    const targets = new Set(
      (m[2] ?? '')
        .split(',')
        .filter((t) => t.trim() !== '')
        .map((t) => t.trim().slice(1, -1)),
    );
    if (may.has(m[1]!)) throw new Error(`${source}:${i + 1}: \`${m[1]}\` has two lines`);
    may.set(m[1]!, targets);
  }
  if (may.size === 0) throw new Error(`${source}: the "## Floors" section lists no floor`);
  for (const [floor, targets] of may)
    for (const t of targets)
      if (!may.has(t)) throw new Error(`${source}: \`${floor}\` → \`${t}\`, which has no line of its own`);
  return { source, may };
}

/** The floor a file (relative to `src/`) belongs to: its own line, else its top folder's, else `./`. */
export function floorOf(file: string, floors: Floors): string {
  if (floors.may.has(file)) return file;
  const slash = file.indexOf('/');
  if (slash >= 0) return file.slice(0, slash + 1);
  return floors.may.has(file) ? file : './';
}

/** Loops among the floors' arrows, each as its floors in order. */
export function floorLoops(floors: Floors): string[][] {
  return cycles([...floors.may.keys()], (f) => [...(floors.may.get(f) ?? [])]);
}

/** Every non-trivial strongly connected component (Tarjan), each in discovery order. */
export function cycles(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const strong = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || next(v).includes(v)) out.push(scc.reverse());
    }
  };
  for (const n of nodes) if (!index.has(n)) strong(n);
  return out;
}

/** What a package's sources break of the rules, one message each. */
export function floorViolations(
  files: ReadonlyMap<string, string>,
  floors: Floors,
  own: { readonly name: string; readonly dependencies: ReadonlySet<string> },
): string[] {
  const problems: string[] = [];
  for (const loop of floorLoops(floors))
    problems.push(`${floors.source}: the floors loop: ${[...loop, loop[0]].join(' → ')}`);
  const valueNext = new Map<string, string[]>();
  for (const [file, text] of files) {
    const from = floorOf(file, floors);
    if (!floors.may.has(from))
      problems.push(`${file}: its floor \`${from}\` has no line in ${floors.source}`);
    const next: string[] = [];
    for (const e of importsOf(file, text)) {
      const kind = e.typeOnly ? ' (type-only)' : '';
      if (e.to === undefined) {
        const pkg = /^(@stagecraft\/[^/]+)/.exec(e.specifier)?.[1];
        if (pkg !== undefined && pkg !== own.name && !own.dependencies.has(pkg))
          problems.push(`${file}: imports ${e.specifier}, which is not among ${own.name}'s dependencies`);
        continue;
      }
      if (e.to.startsWith('..')) {
        problems.push(`${file}: imports ${e.specifier}, outside src/ (import another package by its name)`);
        continue;
      }
      const to = floorOf(e.to, floors);
      if (to !== from && !floors.may.get(from)?.has(to)) {
        const allowed = [...(floors.may.get(from) ?? [])].map((f) => `\`${f}\``).join(', ') || 'nothing';
        problems.push(
          `${file}: imports ${e.specifier}${kind}, a floor \`${from}\` may not import (it may import ${allowed}: ${floors.source})`,
        );
      }
      if (!e.typeOnly && files.has(e.to)) next.push(e.to);
    }
    valueNext.set(file, next);
  }
  for (const loop of cycles([...files.keys()], (f) => valueNext.get(f) ?? []))
    problems.push(`files import each other in a loop (not through a type-only import): ${loop.join(' → ')}`);
  return problems;
}

export interface PackageSources {
  readonly dir: string;
  readonly name: string;
  readonly dependencies: ReadonlySet<string>;
  readonly floors: Floors;
  /** Non-test sources under src/, by path relative to src/. */
  readonly files: ReadonlyMap<string, string>;
}

/** A package's non-test sources, its README's floors and its declared dependencies. */
export async function readPackage(root: string, dir: string): Promise<PackageSources> {
  const fs = await nodeFs();
  const json = JSON.parse(fs.readFileSync(`${root}/${dir}/package.json`, 'utf8')) as {
    name: string;
    dependencies?: Record<string, string>;
  };
  const readme = `${dir}/README.md`;
  const floors = parseFloors(readme, fs.readFileSync(`${root}/${readme}`, 'utf8'));
  const files = new Map<string, string>();
  const walk = async (rel: string) => {
    const abs = `${root}/${dir}/src${rel === '' ? '' : `/${rel}`}`;
    for (const name of fs.readdirSync(abs).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (fs.statSync(`${abs}/${name}`).isDirectory()) await walk(path);
      else if (SOURCE.test(name) && !TEST.test(name) && !name.endsWith('.d.ts'))
        files.set(path, fs.readFileSync(`${abs}/${name}`, 'utf8'));
    }
  };
  await walk('');
  return { dir, name: json.name, dependencies: new Set(Object.keys(json.dependencies ?? {})), floors, files };
}
