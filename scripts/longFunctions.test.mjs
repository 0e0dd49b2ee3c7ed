import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { checkLongFunctions, documentedExceptions, LIMIT, longFunctionsIn } from './longFunctions.mjs';

/** A function of `lines` lines in all, named `name`. */
function fn(name, lines) {
  return `export function ${name}() {\n${'  call();\n'.repeat(lines - 2)}}\n`;
}

const trees = [];
afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A repository with one package whose src holds `files`, and docs/long-functions.md if given. */
function tree(files, exceptions) {
  const root = mkdtempSync(join(tmpdir(), 'long-functions-'));
  trees.push(root);
  mkdirSync(join(root, 'packages', 'p', 'src'), { recursive: true });
  mkdirSync(join(root, 'apps'), { recursive: true });
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(root, 'packages', 'p', 'src', name), text);
  if (exceptions !== undefined) {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'long-functions.md'), exceptions);
  }
  return root;
}

describe('the long-function check', () => {
  test('finds a function over the limit, by the name a reader searches for, and passes one at it', () => {
    const text = `${fn('short', LIMIT)}export const pass = {\n  run() {\n${'    step();\n'.repeat(LIMIT)}  },\n};\n`;
    expect(longFunctionsIn(text, 'a.ts')).toEqual([{ name: 'pass.run', line: LIMIT + 2, lines: LIMIT + 2 }]);
  });

  test('methods are named with their class, arrow functions with their variable', () => {
    const text = `class Writer {\n  lowerGroup() {\n${'    x();\n'.repeat(LIMIT)}  }\n}\nconst paint = () => {\n${'  y();\n'.repeat(LIMIT)}};\n`;
    expect(longFunctionsIn(text, 'a.ts').map((f) => f.name)).toEqual(['Writer.lowerGroup', 'paint']);
  });

  test('fails on a long function the documented list does not give a reason for', () => {
    const root = tree({ 'a.ts': fn('huge', LIMIT + 10) });
    const { problems } = checkLongFunctions(root);
    expect(problems).toEqual([
      `packages/p/src/a.ts:1: huge is ${LIMIT + 10} lines (over ${LIMIT}) and not listed in docs/long-functions.md`,
    ]);
  });

  test('passes a documented long function, and fails a documented one that is no longer long', () => {
    const table = [
      '| file | function | lines | why it stays |',
      '| --- | --- | --- | --- |',
      '| `packages/p/src/a.ts` | `huge` | 130 | one table of cases |',
      '| `packages/p/src/a.ts` | `gone` | 125 | was long |',
    ].join('\n');
    const root = tree(
      { 'a.ts': fn('huge', LIMIT + 10) + fn('gone', 10), 'a.test.ts': fn('aTest', 500) },
      table,
    );
    expect(checkLongFunctions(root).problems).toEqual([
      `docs/long-functions.md: packages/p/src/a.ts gone is listed but is no longer over ${LIMIT} lines; drop its row`,
    ]);
  });

  test('the documented list reads path, name and reason from its table rows', () => {
    const rows = documentedExceptions('text\n| `a/b.ts` | `f` | 130 | a reason |\n| header | x | y | z |\n');
    expect([...rows]).toEqual([['a/b.ts f', 'a reason']]);
  });

  test('this repository has no long function without its documented reason', () => {
    expect(checkLongFunctions().problems).toEqual([]);
  });
});
