import { readdirSync } from 'node:fs';
import { type Dag, nodeTags, parseDesign } from '@stagecraft/ir';
import { compile } from '@stagecraft/passes';
import { describe, expect, test } from 'vitest';
import { EXAMPLES, example } from '../test/harness.ts';
import { wireDagJson } from './wireDag.ts';

/** The DAG of the API built the plain way: objects first, then JSON. */
function plainWire(dag: Dag): string {
  const { nodes } = dag;
  const edges = Array.from(dag.edges.from, (f, j) => ({
    from: nodes[f]!.id,
    to: nodes[dag.edges.to[j]!]!.id,
    kind: dag.edges.kind[j] === 0 ? 'data' : 'temporal',
    ...(dag.edges.kind[j] === 0 ? { bytes: dag.edges.bytes[j] } : {}),
  }));
  return JSON.stringify({
    nodes: nodes.map((n) => ({ ...n, tags: nodeTags(dag, n) })),
    edges,
    groups: dag.groups,
    dims: dag.dims,
    streams: dag.streams,
  });
}

function compiledDag(name: string): Dag {
  const parsed = parseDesign(example(name));
  if (!parsed.ok) throw new Error(parsed.errors[0]!.message);
  const r = compile(parsed.design, { keepSnapshots: false });
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return r.dag;
}

describe('the DAG of /api/compile written as JSON', () => {
  const names = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length));

  test.each(names)('%s: the same text as the nodes with nodeTags and the edges by id', (name) => {
    const dag = compiledDag(name);
    expect(wireDagJson(dag)).toBe(plainWire(dag));
  });

  test('a block tag named like a split dimension takes the dimension value, as nodeTags does', () => {
    const dag = compiledDag('1f1b-p4-m8');
    const dim = dag.dims[0]!.name;
    const clashing: Dag = {
      ...dag,
      blocks: dag.blocks.map((b) => ({ ...b, tags: { [dim]: 99, ...b.tags, '7': 3 } })),
    };
    const text = wireDagJson(clashing);
    expect(text).toBe(plainWire(clashing));
    const first = (
      JSON.parse(text) as { nodes: { dims: number[]; tags: Record<string, unknown> }[] }
    ).nodes.find((n) => (n.dims[0] ?? -1) >= 0)!;
    expect(first.tags[dim]).toBe(first.dims[0]);
  });
});
