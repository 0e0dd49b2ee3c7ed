/**
 * The browser's sweep imports the planner's sweep entry only: the package's main entry reaches the
 * layout search's Node threads (node:worker_threads, node:os), which a browser bundle cannot hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const webSrc = resolve(here, '..');
const plannerSrc = resolve(here, '../../../../packages/planner/src');

/** Static imports and re-exports, and dynamic imports (the layout search loads its threads so). */
const IMPORT = /(?:(?:import|export)[^'"]*?from\s*|import\(\s*)'([^']+)'/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => m[1]!);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The planner's own files an entry reaches through relative imports. */
function closure(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const imports = importsOf(file);
    seen.set(file, imports);
    for (const i of imports) if (i.startsWith('.')) visit(resolve(dirname(file), i));
  };
  visit(entry);
  return seen;
}

describe("the web app's planner import", () => {
  test('every import of the planner in the web app is its browser entry', () => {
    const bare = sources(webSrc).filter((f) => importsOf(f).includes('@stagecraft/planner'));
    expect(bare.map((f) => f.slice(webSrc.length + 1))).toEqual([]);
  });

  test('the browser entry reaches no node: module, and the main entry does (what the check would catch)', () => {
    const nodeImports = (entry: string) =>
      [...closure(join(plannerSrc, entry))].flatMap(([f, is]) =>
        is.filter((i) => i.startsWith('node:')).map((i) => `${f.slice(plannerSrc.length + 1)}: ${i}`),
      );
    expect(nodeImports('sweep.ts')).toEqual([]);
    expect(nodeImports('index.ts').length).toBeGreaterThan(0);
  });
});
