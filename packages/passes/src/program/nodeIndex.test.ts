import { type Dag, type Design, type Filter, nodeTags } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compile } from '../compile/compile.ts';
import { NodeIndex } from './nodeIndex.ts';

function design(
  builder: 'interleaved-1f1b' | 'zb-h1' | 'dualpipe',
  ranks: number,
  stages: number,
  microbatches: number,
): Design {
  return {
    format: 'stagecraft/design@1',
    name: `${builder} p=${ranks} m=${microbatches}`,
    model: { kind: 'synthetic', stages, costs: { F: 1, BI: 1, BW: 1 }, activationBytes: 64 },
    cluster: { kind: 'ideal', devices: ranks },
    directives: [{ op: 'schedule', builder, microbatches }],
  };
}

/** Compute nodes of a block whose tags agree with every key of the filter, ascending. */
function scanned(dag: Dag, filter: Filter): number[] {
  const out: number[] = [];
  dag.nodes.forEach((n, i) => {
    if (n.kind !== 'compute' || n.block < 0) return;
    const tags = nodeTags(dag, n);
    if (Object.entries(filter).every(([k, v]) => (v === '*' ? k in tags : tags[k] === v))) out.push(i);
  });
  return out;
}

const FILTERS: Filter[] = [
  {},
  { PP: 1 },
  { PP: '*', PASS: 'F' },
  { MB: 2 },
  { PP: 0, MB: 1, PASS: 'BI' },
  { PP: 3, PASS: 'BW' },
];

describe('the filter index', () => {
  const designs = [
    design('interleaved-1f1b', 2, 4, 4),
    design('zb-h1', 4, 4, 8),
    design('dualpipe', 4, 4, 8),
  ];
  for (const d of designs) {
    it(`matches what a scan of the nodes' tags finds, after every pass (${d.name})`, () => {
      const r = compile(d);
      if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
      const dags = r.snapshots.flatMap((s) => (s.dag && s.dag.dims.length > 0 ? [s.dag] : []));
      expect(dags.length).toBeGreaterThanOrEqual(5);
      const filters = [...FILTERS, ...(d.name.startsWith('dualpipe') ? [{ DIR: 1 }, { DIR: 0, MB: 3 }] : [])];
      for (const dag of dags) {
        // The index passed on from an earlier DAG (place → order) and one built afresh agree.
        for (const index of [NodeIndex.of(dag), new NodeIndex(dag)]) {
          for (const f of filters)
            expect([...index.match(f, [])].sort((a, b) => a - b)).toEqual(scanned(dag, f));
        }
      }
    });
  }
});
