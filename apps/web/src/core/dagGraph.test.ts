import { describe, expect, test } from 'vitest';
import { computed, example } from '../../test/testDesigns.ts';
import { computeDesign, passGraph } from './computeDesign.ts';

describe('the DAG as the canvas draws it', () => {
  const design = example('1f1b-p4-m8');

  test('microbatches are collapsed by default: one node per pass of each stage', () => {
    const g = computed(design).graph;
    expect(g.totalNodes).toBe(164);
    const f = g.nodes.filter((n) => n.data.op === 'F');
    expect(f).toHaveLength(4);
    expect(f.every((n) => n.data.count === 8)).toBe(true);
  });

  test('one lane per device group, in device order', () => {
    const g = computed(design).graph;
    expect(g.lanes.map((l) => l.label)).toEqual(['device 0', 'device 1', 'device 2', 'device 3']);
  });

  test('expanding a stage draws each of its microbatches', () => {
    const g = computed(design, ['1:1']).graph;
    const f1 = g.nodes.filter((n) => n.data.op === 'F' && n.data.tags.PP === 1);
    expect(f1).toHaveLength(8);
    expect(f1.map((n) => n.data.label)).toContain('F mb3');
  });

  test('data and temporal edges stay distinct', () => {
    const g = computed(design, ['0:0']).graph;
    expect(g.edges.some((e) => e.kind === 'data')).toBe(true);
    expect(g.edges.some((e) => e.kind === 'temporal')).toBe(true);
  });

  test('a node says which directive and pass made it', () => {
    const f = computed(design).graph.nodes.find((n) => n.data.op === 'F' && n.data.tags.PP === 2)!;
    expect(f.data.provenance).toMatchObject({
      pass: 'place',
      op: 'place',
      path: 'directives[0].expansion[3]',
    });
    expect(f.data.costMs).toBe(1);
    expect(f.data.allocBytes).toBe(268435456);
  });

  test('the pass inspector highlights the nodes a pass added', () => {
    const { compiled } = computeDesign(design, new Set());
    const g = passGraph(compiled!, 'insert-send-recv', new Set())!;
    const added = g.nodes.filter((n) => n.data.highlight === 'added');
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((n) => n.data.kind === 'p2p')).toBe(true);
    const place = passGraph(compiled!, 'place', new Set())!;
    expect(place.nodes.every((n) => n.data.highlight === 'changed')).toBe(true);
  });
});
