import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseDesignText } from '@stagecraft/ir';
import { runDesign } from '@stagecraft/workflow';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../test/run.ts';

// The runtime's tests run plans compiled ahead (runtime/tests/plans), so pytest needs no Node:
// they must stay what the compiler makes of their designs, or the runtime is tested on old plans.
const designs = join(ROOT, 'runtime/tests/designs');
const plans = join(ROOT, 'runtime/tests/plans');

describe('the runtime tests’ plans', () => {
  for (const file of readdirSync(designs).filter((f) => f.endsWith('.json'))) {
    it(`${file} is what the compiler makes of its design (else run runtime/tests/make_plans.sh)`, () => {
      const parsed = parseDesignText(readFileSync(join(designs, file), 'utf8'), {
        defaultName: basename(file, extname(file)),
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      const run = runDesign(parsed.design, { keepSnapshots: false });
      if (!run.ok) throw new Error(JSON.stringify(run.errors));
      const expected = JSON.parse(JSON.stringify(run.compiled.plan));
      expect(JSON.parse(readFileSync(join(plans, file), 'utf8'))).toEqual(expected);
    });
  }
});
