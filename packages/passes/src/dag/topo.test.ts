/**
 * The topological sort fills each node's predecessor lists in the sweep that fills its
 * successors; stream-order and lower-plan read them instead of building their own, so they must
 * be exactly `predecessors`' lists, and absent where the sort cannot count them (overlap units,
 * an edge from a node to itself).
 */
import { type Dag, EDGE_TEMPORAL, FRESH, lend, tableOf, withParts } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { exampleDesigns } from '../../../../test/repoFiles.ts';
import { compile } from '../compile/compile.ts';
import { predecessors } from './adjacency.ts';
import { topoOrder, unitsOf } from './topo.ts';

const examples = await exampleDesigns();

function compiled(name: string): Dag {
  const design = examples.find((e) => e.file.includes(name))!.design;
  const r = compile(design, { keepSnapshots: false });
  if (!r.ok) throw new Error(`${name} does not compile`);
  return r.dag;
}

describe('the topological sort’s predecessor lists', () => {
  it('are the predecessors of every node, in edge order, on an example without overlap units', () => {
    const dag = compiled('interleaved-1f1b-p4-v2-m8');
    const units = unitsOf(dag);
    expect(units.members.size).toBe(0);
    const loan = lend();
    try {
      const topo = topoOrder(dag, units, loan);
      if (!topo.ok) throw new Error('cycle');
      expect(topo.predecessors?.lentFrom).toBe(loan);
      const expected = predecessors(tableOf(dag).length, dag.edges, FRESH);
      expect(Array.from(topo.predecessors!.lists.offset)).toEqual(Array.from(expected.offset));
      expect(Array.from(topo.predecessors!.lists.node)).toEqual(Array.from(expected.node));
    } finally {
      loan.close();
    }
  });

  it('are absent when overlap units make the in-degrees count units, not edges', () => {
    // DualPipe overlaps a forward with a backward in one slot.
    const dag = compiled('dualpipe-p4-m8');
    expect(dag.overlaps.length).toBeGreaterThan(0);
    const topo = topoOrder(dag, unitsOf(dag));
    expect(topo.ok && topo.predecessors).toBeUndefined();
  });

  it('are absent when an edge runs from a node to itself', () => {
    const dag = compiled('interleaved-1f1b-p4-v2-m8');
    const e = dag.edges;
    const looped = withParts(dag, {
      edges: {
        from: Int32Array.from([...e.from, 0]),
        to: Int32Array.from([...e.to, 0]),
        kind: Uint8Array.from([...e.kind, EDGE_TEMPORAL]),
        bytes: Float64Array.from([...e.bytes, 0]),
      },
    });
    const topo = topoOrder(looped, unitsOf(looped));
    expect(topo.ok).toBe(true);
    expect(topo.ok && topo.predecessors).toBeUndefined();
  });
});
