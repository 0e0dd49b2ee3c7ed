/** The one pipeline both compile entry points take: its passes, their order, what they read. */
import { type Design, DIRECTIVE_OPS } from '@stagecraft/ir';
import { describe, expect, test } from 'vitest';
import { compile } from './compile.ts';
import { compileIncremental } from './incremental.ts';
import { PASSES } from './pipeline.ts';

const design: Design = {
  format: 'stagecraft/design@1',
  name: 'pipeline',
  model: { kind: 'synthetic', stages: 2, costs: { F: 1, BI: 1, BW: 1 } },
  cluster: { kind: 'ideal', devices: 2 },
  directives: [{ op: 'schedule', builder: '1f1b', microbatches: 4 }],
};

describe('the compile pipeline', () => {
  test('every directive kind of an expanded program is read by some pass', () => {
    // A kind no pass reads would let an incremental compile reuse everything after its edit.
    const read = new Set(PASSES.flatMap((p) => p.reads));
    const expanded = DIRECTIVE_OPS.filter((op) => op !== 'schedule');
    expect(expanded.filter((op) => !read.has(op))).toEqual([]);
  });

  test('compile and compileIncremental run the same passes in the same order, each once', () => {
    const names = ['expand-schedule', 'build-dag', ...PASSES.map((p) => p.name)];
    const full = compile(design);
    const incremental = compileIncremental(design, undefined).result;
    expect(full.snapshots.map((s) => s.pass)).toEqual(names);
    expect(incremental.snapshots.map((s) => s.pass)).toEqual(names);
  });

  test('stream-order runs as its own pass, right before lower-plan', () => {
    const names = PASSES.map((p) => p.name);
    expect(names.indexOf('lower-plan') - names.indexOf('stream-order')).toBe(1);
    expect(names.indexOf('stream-order') - names.indexOf('partition')).toBe(1);
  });
});
