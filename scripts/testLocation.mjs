// The tests-location rule (issue 32): a package's tests sit in src/ beside the module they test
// (`name.ts` → `name.test.ts`, `name.property.test.ts`); a `test/` folder holds only fixtures
// several tests share. Vitest looks for tests in src/ alone, so a test left in test/ would never
// run: `node scripts/testLocation.mjs` names any.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './ensure.mjs';

const TEST_FILE = /\.test\.(ts|tsx|mts|mjs|js)$/;

/** Test files in the `test/` folder of any package or app, relative to `root`. */
export function misplacedTests(root = ROOT) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (TEST_FILE.test(entry.name)) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  for (const top of ['packages', 'apps']) {
    if (!existsSync(join(root, top))) continue;
    for (const pkg of readdirSync(join(root, top), { withFileTypes: true })) {
      const tests = join(root, top, pkg.name, 'test');
      if (pkg.isDirectory() && existsSync(tests)) walk(tests);
    }
  }
  return out.sort();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const found = misplacedTests();
  for (const f of found)
    console.error(`${f}: tests sit in src/ beside the module they test; test/ holds fixtures`);
  process.exit(found.length > 0 ? 1 : 0);
}
