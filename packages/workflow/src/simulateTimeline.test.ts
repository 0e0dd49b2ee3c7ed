/**
 * A simulation asked for its metrics only gives the metrics of one that keeps the timeline. On the
 * ideal cluster the two take different paths in the simulator (a sweep of the streams without
 * the timeline, the event loop with it), so every example holds them to the same numbers.
 */
import { compile } from '@stagecraft/passes';
import { simulate } from '@stagecraft/sim';
import { describe, expect, test } from 'vitest';
import { exampleDesigns } from '../test/repoFiles.ts';

const examples = exampleDesigns();

describe('metrics with and without the timeline', () => {
  test('the examples include designs on the ideal cluster (the sweep) and on real ones (the loop)', () => {
    const kinds = new Set(examples.map((e) => e.design.cluster.kind ?? 'preset'));
    expect(kinds.has('ideal')).toBe(true);
    expect(kinds.size).toBeGreaterThan(1);
  });

  test.each(examples)('$file: the same metrics either way', ({ design }) => {
    const compiled = compile(design, { keepSnapshots: false });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const without = simulate(compiled.plan, { keepTimeline: false });
    const withTimeline = simulate(compiled.plan);
    if (!without.ok || !withTimeline.ok) throw new Error('simulation failed');
    const { timeline: _timeline, memory: _memory, ...metrics } = withTimeline.sim;
    expect(without.sim).toEqual(metrics);
  });
});
