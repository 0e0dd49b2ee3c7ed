/**
 * The unsplit training DAG of one microbatch: per block a forward F and a fused backward B, with
 * activations flowing forward, gradients backward and each F's stash feeding its own B.
 */
import {
  type BlockInfo,
  type ComputeNode,
  computeNode,
  type Dag,
  EDGE_DATA,
  type EdgeKind,
} from '@stagecraft/ir';

export function buildDag(blocks: readonly BlockInfo[]): Dag {
  const nodes: ComputeNode[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const kind: EdgeKind[] = [];
  const bytes: number[] = [];
  const edge = (u: number, v: number, b: number) => {
    from.push(u);
    to.push(v);
    kind.push(EDGE_DATA);
    bytes.push(b);
  };
  const provenance = { pass: 'build-dag', directive: null };
  // Node fields are read-only: every node shares one empty list of split indices, so `split`
  // can share its extended lists too.
  const dims: readonly number[] = [];
  blocks.forEach((b, i) => {
    nodes.push(
      computeNode({
        op: 'F',
        id: `F.b${i}`,
        block: i,
        dims,
        group: -1,
        stream: 'compute',
        provenance,
        allocBytes: b.activationBytes,
        freeBytes: 0,
      }),
    );
    nodes.push(
      computeNode({
        op: 'B',
        id: `B.b${i}`,
        block: i,
        dims,
        group: -1,
        stream: 'compute',
        provenance,
        allocBytes: 0,
        freeBytes: b.activationBytes,
      }),
    );
  });
  const F = (i: number) => 2 * i;
  const B = (i: number) => 2 * i + 1;
  const last = blocks.length - 1;
  for (let i = 0; i < blocks.length; i++) {
    if (i < last) edge(F(i), F(i + 1), blocks[i]!.outputBytes);
    edge(F(i), B(i), blocks[i]!.activationBytes);
    if (i < last) edge(B(i + 1), B(i), blocks[i]!.outputBytes);
  }
  return { blocks, dims: [], groups: [], nodes, edges: { from, to, kind, bytes }, overlaps: [], streams: [] };
}
