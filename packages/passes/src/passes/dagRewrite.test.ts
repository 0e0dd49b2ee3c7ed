import { FRESH, nodeIdOf } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compiled, onTwoStages } from '../../test/parallelDesigns.ts';
import type { PassContext } from '../driver/pass.ts';
import { DagRewrite } from './dagRewrite.ts';

/** The unsplit DAG of a two-stage design and the context its passes run in. */
function built(...directives: Parameters<typeof onTwoStages>) {
  const design = onTwoStages(...directives);
  const r = compiled(design);
  const dag = r.snapshots.find((s) => s.pass === 'build-dag')!.dag!;
  const ctx: PassContext = {
    design,
    options: { maxOps: 1e6, keepSnapshots: true },
    scratch: FRESH,
    program: r.program,
  };
  return { dag, ctx };
}

describe('DagRewrite', () => {
  it('has nothing to do when the program has no directive of its kind', () => {
    const { dag, ctx } = built({ op: 'recompute', filter: { PP: 1 } });
    expect(DagRewrite.of(dag, ctx, 'offload', 'offload')).toBeUndefined();
  });

  it('finds the directives of its kind with their paths', () => {
    const { dag, ctx } = built({ op: 'recompute', filter: { PP: 1 } });
    const rewrite = DagRewrite.of(dag, ctx, 'recompute', 'recompute')!;
    expect(rewrite.directives.map((x) => x.path)).toEqual([['directives', 3]]);
    expect(rewrite.t.length).toBe(dag.nodes.length);
  });

  it('reads the adjacency of the DAG as it came in', () => {
    const { dag, ctx } = built({ op: 'recompute', filter: { PP: 1 } });
    const { out, inc } = DagRewrite.of(dag, ctx, 'recompute', 'recompute')!;
    const at = (id: string) => dag.nodes.findIndex((n) => n.id === id);
    const ends = (a: { offset: Int32Array; edge: Int32Array }, i: number, end: ArrayLike<number>) =>
      Array.from({ length: a.offset[i + 1]! - a.offset[i]! }, (_, k) =>
        nodeIdOf(dag, end[a.edge[a.offset[i]! + k]!]!),
      );
    expect(ends(out, at('F.b0'), dag.edges.to)).toContain('F.b1');
    expect(ends(inc, at('F.b1'), dag.edges.from)).toEqual(['F.b0']);
    expect(ends(inc, at('F.b0'), dag.edges.from)).toEqual([]);
  });
});
