import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { packGraph, unpackGraph } from './graphWire.ts';

describe('a DAG graph posted by the worker', () => {
  test('comes out on the page as the worker laid it out, edges included', () => {
    const g = computed(example('1f1b-p4-m8'), ['0:0', '2:2']).graph;
    const { posted, transfer } = packGraph(g);
    // What postMessage does with it: a structured clone, the buffers moved.
    const onPage = structuredClone(posted, { transfer });
    expect(unpackGraph(onPage)).toEqual(g);
    expect(g.edges.some((e) => e.count > 1 || e.kind === 'temporal')).toBe(true);
  });

  test('its edges travel as typed arrays, not as an object each', () => {
    const g = computed(example('1f1b-p4-m8')).graph;
    const { posted } = packGraph(g);
    expect(posted).not.toHaveProperty('edges');
    expect(posted.edgeColumns.source).toBeInstanceOf(Int32Array);
    expect(posted.edgeColumns.source).toHaveLength(g.edges.length);
  });
});
