import { collectiveNode, type Dag, emptyEdges, p2pNode } from '@stagecraft/ir';
import { describe, expect, it } from 'vitest';
import { COMPACT_ABOVE, compactGroups } from './replicaLayout.ts';

function dag(groups: number[][]): Dag {
  const send = p2pNode({
    op: 'SEND',
    id: 'SEND.x',
    block: 0,
    dims: [],
    group: 0,
    stream: 'p2p',
    provenance: { pass: 'insert-send-recv', directive: null },
    peerGroup: 1,
    bytes: 1,
    transfer: 'x',
    pass: 'F',
  });
  return { blocks: [], dims: [], groups, nodes: [send], edges: emptyEdges(), overlaps: [], streams: [] };
}

const cluster = { preset: 'dgx-h100', nodes: 2 };
const big = Math.ceil(COMPACT_ABOVE / 8) + 1;
const range = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);

describe('groups lowered once', () => {
  it('when the per-device plan is large and member r of each group reaches member r of its peer over one kind of link', () => {
    expect(compactGroups(dag([range(0, 8), range(8, 8)]), cluster, [big, big])).toBe(true);
  });

  it('not when members are asymmetric: ranks 0–1 of [0..5] → [6..11] stay in node 0, ranks 2–5 cross nodes', () => {
    expect(compactGroups(dag([range(0, 6), range(6, 6)]), cluster, [big * 2, big * 2])).toBe(false);
  });

  it('not while the per-device plan is small', () => {
    expect(compactGroups(dag([range(0, 8), range(8, 8)]), cluster, [10, 10])).toBe(false);
  });

  it("not when a collective across groups (DualPipe's copies) pairs ranks over different links", () => {
    // Groups [0..5] and [8..13] never exchange data; their copies pair member r with member r:
    // ranks 0–5 all cross nodes, so lowered once; [0..5] with [6..11]: ranks 0–1 stay in node 0.
    const copies = (groups: number[][]): Dag => ({
      ...dag(groups),
      nodes: groups.map((_, g) =>
        collectiveNode({
          op: 'ALL_REDUCE',
          id: `ALL_REDUCE.copies.on.${g}`,
          block: 0,
          dims: [],
          group: g,
          stream: 'compute',
          provenance: { pass: 'reduce-copies', directive: null },
          devices: groups.flat(),
          bytes: 1,
        }),
      ),
      jointCollectives: [[0, 1]],
    });
    expect(compactGroups(copies([range(0, 6), range(8, 6)]), cluster, [big * 2, big * 2])).toBe(true);
    expect(compactGroups(copies([range(0, 6), range(6, 6)]), cluster, [big * 2, big * 2])).toBe(false);
  });
});
