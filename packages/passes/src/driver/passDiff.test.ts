import { computeNode, type Dag, type DagNode, emptyEdges } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { compiled, onTwoStages } from '../../test/parallelDesigns.ts';
import { ChangedSnapshot, nodeDiff } from './passDiff.ts';

const provenance = { pass: 'test', directive: null };
const node = (id: string, allocBytes = 0): DagNode =>
  computeNode({
    op: 'F',
    id,
    block: 0,
    dims: [0],
    group: 0,
    stream: 'compute',
    provenance,
    allocBytes,
    freeBytes: 0,
  });
const dagOf = (nodes: DagNode[]) => ({ nodes, edges: emptyEdges(), blocks: [] }) as unknown as Dag;

describe('nodeDiff', () => {
  it('names what was added, removed and changed, by id', () => {
    const a = node('a');
    const b = node('b');
    const before = dagOf([a, b, node('c')]);
    const after = dagOf([a, node('b', 8), node('d')]);
    expect(nodeDiff(before, after)).toEqual({ added: ['d'], removed: ['c'], changed: ['b'] });
  });

  it('does not count a node rebuilt with the same fields as changed', () => {
    const before = dagOf([node('a'), node('b')]);
    const after = dagOf([node('b'), node('a')]);
    expect(nodeDiff(before, after)).toEqual({ added: [], removed: [], changed: [] });
  });

  it('counts every node of the first DAG as added', () => {
    expect(nodeDiff(undefined, dagOf([node('a'), node('b')])).added).toEqual(['a', 'b']);
  });
});

describe('ChangedSnapshot', () => {
  it('shows the fields of any snapshot, its diff read on demand', () => {
    const after = dagOf([node('a')]);
    const s = new ChangedSnapshot('p', 1, undefined, after);
    expect(Object.keys(s)).toEqual(['pass', 'ms', 'dag']);
    expect(s.diff.added).toEqual(['a']);
    expect(s.diff).toBe(s.diff);
  });

  it('is what a compile records for each pass that changed the DAG', () => {
    const r = compiled(onTwoStages({ op: 'recompute', filter: { PP: 1 } }));
    const recompute = r.snapshots.find((s) => s.pass === 'recompute')!;
    expect(recompute.diff?.added).toContain('RECOMPUTE.b3.mb0');
    expect(recompute.diff?.changed).toContain('F.b3.mb0');
    expect(r.snapshots.find((s) => s.pass === 'build-dag')!.diff?.added).toContain('F.b0');
    for (const s of r.snapshots) expect(s.diff === undefined).toBe(s.dag === undefined);
  });
});
