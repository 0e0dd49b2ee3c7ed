import { describe, expect, test } from 'vitest';
import { collectiveNode } from './commNodes.ts';
import { computeNode, type Dag, type DagNode, emptyEdges, p2pNode } from './dag.ts';
import { dagOf, nodeCount, nodeIdOf, partsOf, tableOf, transferOf } from './dagTable.ts';

const provenance = { pass: 'test', directive: 2 };

/** A DAG given as node objects, with ids, a transfer and devices the naming rule would not give. */
function objectDag(): Dag {
  const nodes: DagNode[] = [
    computeNode({
      op: 'F',
      id: 'F.b0.mb1',
      block: 0,
      dims: [1],
      group: 0,
      stream: 'compute',
      provenance,
      allocBytes: 8,
      freeBytes: 0,
      p2pStream: 'pp',
    }),
    computeNode({
      op: 'B',
      id: 'my-backward',
      block: 0,
      dims: [1],
      group: 1,
      stream: 'compute',
      provenance,
      allocBytes: 0,
      freeBytes: 8,
    }),
    p2pNode({
      op: 'SEND',
      id: 'SEND.F.b0.mb1.d2',
      block: 0,
      dims: [1],
      group: 0,
      stream: 'pp',
      provenance,
      peerGroup: 1,
      bytes: 4,
      transfer: 'F.b0.mb1.d2',
      pass: 'F',
    }),
    p2pNode({
      op: 'RECV',
      id: 'RECV.custom',
      block: 0,
      dims: [1],
      group: 1,
      stream: 'p2p',
      provenance: { pass: 'test', directive: null },
      peerGroup: 0,
      bytes: 4,
      transfer: 'custom',
      pass: 'F',
    }),
    collectiveNode({
      op: 'ALL_REDUCE',
      id: 'AR',
      block: 0,
      dims: [-1],
      group: 1,
      stream: 'dp',
      provenance,
      devices: [3, 2],
      bytes: 16,
    }),
    {
      kind: 'control',
      op: 'ORDER_SINK',
      id: 'ORDER_SINK.x',
      block: -1,
      dims: [],
      group: 0,
      stream: 'compute',
      provenance,
    },
  ];
  return {
    blocks: [{ name: 'b0', tags: { PP: 0 }, activationBytes: 8, paramBytes: 1, outputBytes: 4 }],
    dims: [{ name: 'MB', size: 2, directive: 0 }],
    groups: [
      [0, 1],
      [2, 3],
    ],
    nodes,
    edges: emptyEdges(),
    overlaps: [],
    streams: [],
  };
}

describe('a DAG as a node table', () => {
  test('the table of a DAG of node objects reads back the very same nodes', () => {
    const dag = objectDag();
    const table = tableOf(dag);
    expect(table.length).toBe(6);
    const again = dagOf(partsOf(dag), table);
    expect(again.nodes).toEqual(dag.nodes);
    expect(again.nodes.map((n) => n.id)).toEqual(dag.nodes.map((n) => n.id));
  });

  test('ids and transfers follow what a node is, unless the DAG named them otherwise', () => {
    const dag = objectDag();
    const again = dagOf(partsOf(dag), tableOf(dag));
    // Made from the table alone: the SEND follows the rule, the RECV keeps its own names.
    expect(nodeIdOf(again, 0)).toBe('F.b0.mb1');
    expect(nodeIdOf(again, 1)).toBe('my-backward');
    expect(transferOf(again, 2)).toBe('F.b0.mb1.d2');
    expect(transferOf(again, 3)).toBe('custom');
    const collective = again.nodes[4]!;
    expect(collective.kind === 'collective' && collective.devices).toEqual([3, 2]);
  });

  test('nodes are made once, on first read, and a DAG serialises with them', () => {
    const dag = objectDag();
    const again = dagOf(partsOf(dag), tableOf(dag));
    expect(again.nodes).toBe(again.nodes);
    const text = JSON.parse(JSON.stringify(again));
    expect(text.nodes).toHaveLength(6);
    expect(Object.keys(again)).toEqual(['blocks', 'dims', 'groups', 'nodes', 'edges', 'overlaps', 'streams']);
  });

  test('a DAG made with a parent shares the node objects of the rows it did not change', () => {
    const dag = objectDag();
    const base = dagOf(partsOf(dag), tableOf(dag));
    const t = tableOf(base);
    const alloc = t.alloc.slice();
    alloc[0] = 99;
    const next = dagOf(partsOf(base), { ...t, alloc }, base);
    expect(next.nodes[1]).toBe(base.nodes[1]);
    expect(next.nodes[0]).not.toBe(base.nodes[0]);
    const first = next.nodes[0]!;
    expect(first.kind === 'compute' && first.allocBytes).toBe(99);
  });

  test('a DAG made from a table carries it in its rows, which its keys and JSON leave out', () => {
    const dag = objectDag();
    const table = tableOf(dag);
    const again = dagOf(partsOf(dag), table);
    expect(again.rows?.table).toBe(table);
    expect(again.rows?.parent).toBeUndefined();
    expect(Object.keys(again)).not.toContain('rows');
    expect(JSON.parse(JSON.stringify(again))).not.toHaveProperty('rows');
    expect({ ...again }).not.toHaveProperty('rows');
  });

  test("a DAG given as node objects has no rows: its ids, transfers and size are its nodes'", () => {
    const dag = objectDag();
    expect(dag.rows).toBeUndefined();
    expect(dag.nodes.map((_, i) => nodeIdOf(dag, i))).toEqual(dag.nodes.map((n) => n.id));
    expect(transferOf(dag, 2)).toBe('F.b0.mb1.d2');
    expect(transferOf(dag, 3)).toBe('custom');
    expect(nodeCount(dag)).toBe(6);
    // Reading it leaves it as it was: nothing is attached to it, nor kept aside for it.
    expect(Object.getOwnPropertyNames(dag)).toEqual(Object.keys(objectDag()));
  });

  test("ids made once are kept in the DAG's rows, per DAG, not per table", () => {
    const dag = objectDag();
    const table = tableOf(dag);
    const a = dagOf(partsOf(dag), table);
    const b = dagOf({ ...partsOf(dag), groups: [[5], [6, 7]] }, table);
    expect(nodeIdOf(a, 2)).toBe('SEND.F.b0.mb1.d2');
    expect(nodeIdOf(b, 2)).toBe('SEND.F.b0.mb1.d6');
    expect(a.rows?.ids?.[2]).toBe('SEND.F.b0.mb1.d2');
  });
});
