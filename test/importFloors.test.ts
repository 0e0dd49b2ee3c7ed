import { describe, expect, it } from 'vitest';
import {
  cycles,
  floorViolations,
  importsOf,
  PACKAGE_DIRS,
  type PackageSources,
  parseFloors,
  readPackage,
} from './importFloors.ts';
import { repositoryRoot } from './repoFiles.ts';

const root = await repositoryRoot();
const packages: PackageSources[] = [];
for (const dir of PACKAGE_DIRS) packages.push(await readPackage(root, dir));

describe('the import graph of every package', () => {
  for (const p of packages)
    it(`${p.dir}: no import goes up a floor, and no loop but through a type-only import`, () => {
      expect(floorViolations(p.files, p.floors, p)).toEqual([]);
    });

  it('packages depend on each other without a loop', () => {
    const byName = new Map(packages.map((p) => [p.name, p]));
    const loops = cycles(
      packages.map((p) => p.name),
      (n) => [...(byName.get(n)?.dependencies ?? [])].filter((d) => byName.has(d)),
    );
    expect(loops).toEqual([]);
  });
});

const FLOORS = `# x

## Floors

- \`index.ts\` → \`plan/\`, \`dag/\`
- \`plan/\` → \`design/\`
- \`dag/\` → \`design/\`
- \`design/\`
`;
const floors = parseFloors('x/README.md', FLOORS);
const own = { name: '@stagecraft/x', dependencies: new Set(['@stagecraft/ir']) };

describe('floorViolations', () => {
  it('accepts imports down the floors and a loop closed by a type-only import', () => {
    const files = new Map([
      ['index.ts', "export * from './plan/plan.ts';\nexport * from './dag/dag.ts';"],
      ['plan/plan.ts', "import { a } from '../design/a.ts';\nimport { l } from './layout.ts';"],
      ['plan/layout.ts', "import type { P } from './plan.ts';\nimport { z } from '@stagecraft/ir';"],
      ['dag/dag.ts', "import { a } from '../design/a.ts';"],
      ['design/a.ts', 'export const a = 1;'],
    ]);
    expect(floorViolations(files, floors, own)).toEqual([]);
  });

  it('names an import up a floor, a type-only one too', () => {
    const files = new Map([
      ['design/a.ts', "import type { P } from '../plan/plan.ts';"],
      ['plan/plan.ts', 'export type P = number;'],
    ]);
    expect(floorViolations(files, floors, own)).toEqual([
      'design/a.ts: imports ../plan/plan.ts (type-only), a floor `design/` may not import (it may import nothing: x/README.md)',
    ]);
  });

  it('names an import between sibling floors', () => {
    const files = new Map([
      ['plan/plan.ts', "import { d } from '../dag/dag.ts';"],
      ['dag/dag.ts', 'export const d = 1;'],
    ]);
    expect(floorViolations(files, floors, own)[0]).toMatch(
      /^plan\/plan\.ts: imports \.\.\/dag\/dag\.ts, a floor `plan\/` may not import \(it may import `design\/`/,
    );
  });

  it('names a loop of value imports inside a floor', () => {
    const files = new Map([
      ['plan/a.ts', "import { b } from './b.ts';"],
      ['plan/b.ts', "import { c } from './c.ts';"],
      ['plan/c.ts', "export { a } from './a.ts';"],
    ]);
    expect(floorViolations(files, floors, own)).toEqual([
      'files import each other in a loop (not through a type-only import): plan/a.ts → plan/b.ts → plan/c.ts',
    ]);
  });

  it('counts import() as a value import', () => {
    const files = new Map([
      ['plan/a.ts', "import { b } from './b.ts';"],
      ['plan/b.ts', "export const load = () => import('./a.ts');"],
    ]);
    expect(floorViolations(files, floors, own)).toHaveLength(1);
  });

  it('names a folder with no line, a path out of src/ and an undeclared package', () => {
    const files = new Map([
      ['extra/x.ts', "import { y } from '../../other/src/y.ts';\nimport { s } from '@stagecraft/sim';"],
    ]);
    expect(floorViolations(files, floors, own)).toEqual([
      'extra/x.ts: its floor `extra/` has no line in x/README.md',
      'extra/x.ts: imports ../../other/src/y.ts, outside src/ (import another package by its name)',
      "extra/x.ts: imports @stagecraft/sim, which is not among @stagecraft/x's dependencies",
    ]);
  });

  it('names floors whose arrows loop', () => {
    const looped = parseFloors('y/README.md', '## Floors\n\n- `a/` → `b/`\n- `b/` → `a/`\n');
    expect(floorViolations(new Map(), looped, own)).toEqual(['y/README.md: the floors loop: a/ → b/ → a/']);
  });
});

describe('parseFloors', () => {
  it('refuses a line that is not a floor, an arrow to a floor with no line, and no section', () => {
    expect(() => parseFloors('z', '## Floors\n\n- plan → dag\n')).toThrow(/z:3: a floor line reads/);
    expect(() => parseFloors('z', '## Floors\n\n- `plan/` → `dag/`\n')).toThrow(
      /`plan\/` → `dag\/`, which has no line of its own/,
    );
    expect(() => parseFloors('z', '# nothing here\n')).toThrow(/no "## Floors" section/);
  });
});

describe('importsOf', () => {
  it('tells type-only imports from value imports', () => {
    const text = [
      "import type { A } from './a.ts';",
      "import { type B, type C } from './b.ts';",
      "import { type D, e } from './d.ts';",
      "import './side.ts';",
      "export type { F } from './f.ts';",
      "export * from './g.ts';",
      "type H = import('./h.ts').H;",
    ].join('\n');
    expect(importsOf('x/m.ts', text).map((e) => [e.to, e.typeOnly])).toEqual([
      ['x/a.ts', true],
      ['x/b.ts', true],
      ['x/d.ts', false],
      ['x/side.ts', false],
      ['x/f.ts', true],
      ['x/g.ts', false],
      ['x/h.ts', true],
    ]);
  });
});
