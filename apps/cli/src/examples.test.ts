import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDesignText, SCHEDULE_BUILDERS } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { EXAMPLES } from '../test/run.ts';
import { bufferIo } from './io.ts';
import { main } from './main.ts';

const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

function load(file: string) {
  const r = parseDesignText(readFileSync(join(EXAMPLES, file), 'utf8'));
  if (!r.ok) throw new Error(`${file}: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return r.design;
}

describe('examples', () => {
  test.each(files)('%s is a valid Stagecraft design with a description', (file) => {
    const design = load(file);
    expect(design.description?.length).toBeGreaterThan(20);
  });

  test('every schedule builder has an example', () => {
    const builders = new Set(
      files.flatMap((f) => load(f).directives.flatMap((d) => (d.op === 'schedule' ? [d.builder] : []))),
    );
    expect([...builders].sort()).toEqual([...SCHEDULE_BUILDERS].sort());
  });

  test('the hand-written example uses only Piper directives', () => {
    const ops = new Set(load('manual-order-p2-m4.json').directives.map((d) => d.op));
    expect([...ops].sort()).toEqual(['order', 'place', 'split']);
  });
});

describe('examples compile', () => {
  test.each(files)('stagecraft validate %s', (file) => {
    const io = bufferIo();
    const code = main(['validate', join(EXAMPLES, file)], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    const { name, directives } = load(file);
    const n = directives.length;
    expect(io.stdout).toBe(`ok: ${name} (${n} directive${n === 1 ? '' : 's'})\n`);
  });
});
