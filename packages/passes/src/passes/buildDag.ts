/**
 * The unsplit training DAG of one microbatch: per block a forward F and a fused backward B, with
 * activations flowing forward, gradients backward and each F's stash feeding its own B.
 */
import {
  type BlockInfo,
  type Dag,
  dagOf,
  EDGE_DATA,
  edgeColumns,
  newTable,
  OP_B,
  OP_F,
} from '@stagecraft/ir';

/** Names every table starts with: the compute stream and this pass (rows default to both). */
const NAMES = ['compute', 'build-dag'] as const;

export function buildDag(blocks: readonly BlockInfo[]): Dag {
  const t = newTable(2 * blocks.length, 0, NAMES);
  t.provPass.fill(1);
  for (let i = 0; i < blocks.length; i++) {
    const f = 2 * i;
    const b = f + 1;
    t.op[f] = OP_F;
    t.op[b] = OP_B;
    t.block[f] = t.block[b] = i;
    t.alloc[f] = blocks[i]!.activationBytes;
    t.free[b] = blocks[i]!.activationBytes;
  }
  const edges = edgeColumns(Math.max(0, 3 * blocks.length - 2));
  let m = 0;
  const edge = (u: number, v: number, b: number) => {
    edges.from[m] = u;
    edges.to[m] = v;
    edges.kind[m] = EDGE_DATA;
    edges.bytes[m++] = b;
  };
  const F = (i: number) => 2 * i;
  const B = (i: number) => 2 * i + 1;
  const last = blocks.length - 1;
  for (let i = 0; i < blocks.length; i++) {
    if (i < last) edge(F(i), F(i + 1), blocks[i]!.outputBytes);
    edge(F(i), B(i), blocks[i]!.activationBytes);
    if (i < last) edge(B(i + 1), B(i), blocks[i]!.outputBytes);
  }
  return dagOf({ blocks, dims: [], groups: [], edges, overlaps: [], streams: [] }, t);
}
