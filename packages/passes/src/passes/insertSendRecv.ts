/**
 * Every data edge that crosses device groups becomes SEND on the producer's group and RECV on the
 * consumer's, on the stream the producer's (resp. consumer's) `place` named. Consumers of one
 * output on one group share a single transfer. Groups exchange data rank by rank, so both must
 * have the same size.
 */
import {
  CompileError,
  type ComputeNode,
  type DagNode,
  EDGE_DATA,
  type EdgeKind,
  type Provenance,
  p2pNode,
} from '@stagecraft/ir';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';

export const DEFAULT_P2P_STREAM = 'p2p';

export const insertSendRecvPass: Pass = {
  name: 'insert-send-recv',
  run(dag, ctx) {
    const e = dag.edges;
    // Groups read once into an array: the edge loops below compare them for every edge.
    const groupOf = new Int32Array(dag.nodes.length);
    for (let i = 0; i < groupOf.length; i++) groupOf[i] = dag.nodes[i]!.group;
    let crossing = 0;
    for (let j = 0; j < e.from.length; j++) {
      if (e.kind[j] === EDGE_DATA && groupOf[e.from[j]!] !== groupOf[e.to[j]!]) crossing++;
    }
    if (crossing === 0) return dag;
    if (dag.nodes.length + 2 * crossing > ctx.options.maxOps) {
      throw new CompileError({
        path: '',
        message: `the design has ${(dag.nodes.length + 2 * crossing).toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
      });
    }
    // New nodes go to an array of the most there can be (a transfer per crossing edge), cut to
    // length and joined to the old nodes at the end.
    const added = new Array<DagNode>(2 * crossing);
    let a = 0;
    const base = dag.nodes.length;
    // Columns allocated once at their largest size (every crossing edge its own transfer) and
    // cut to length at the end: growing them by pushes would reallocate each several times.
    const cap = e.from.length + 2 * crossing;
    const from = new Array<number>(cap);
    const to = new Array<number>(cap);
    const kind = new Array<EdgeKind>(cap);
    const bytes = new Array<number>(cap);
    let w = 0;
    const push = (u: number, v: number, k: EdgeKind, b: number) => {
      from[w] = u;
      to[w] = v;
      kind[w] = k;
      bytes[w++] = b;
    };
    // (producer, destination group) → RECV node index: the first destination of a producer in
    // typed arrays (an output mostly goes to one other group), any further ones in a Map.
    const firstGroup = new Int32Array(dag.nodes.length).fill(-1);
    const firstRecv = new Int32Array(dag.nodes.length);
    const moreRecvs = new Map<number, number>();
    // One provenance object per directive, shared by the SENDs and RECVs it causes.
    const provenances = new Map<number | null, Provenance>();
    const provenanceOf = (directive: number | null): Provenance => {
      let p = provenances.get(directive);
      if (!p) provenances.set(directive, (p = { pass: 'insert-send-recv', directive }));
      return p;
    };
    // Transfers are named after their producer and the first device of the receiving group: the
    // group's part of the name is made once, each transfer's name with one concatenation.
    const toGroup = dag.groups.map((devices) => `.d${devices[0]}`);
    const recvOf = (u: number, g: number): number | undefined =>
      firstGroup[u] === g
        ? firstRecv[u]
        : firstGroup[u]! < 0
          ? undefined
          : moreRecvs.get(u * dag.groups.length + g);
    for (let j = 0; j < e.from.length; j++) {
      const u = e.from[j]!;
      const v = e.to[j]!;
      if (e.kind[j] !== EDGE_DATA || groupOf[u] === groupOf[v]) {
        push(u, v, e.kind[j]!, e.bytes[j]!);
        continue;
      }
      const nu = dag.nodes[u]!;
      const nv = dag.nodes[v]!;
      const gu = dag.groups[nu.group]!;
      const gv = dag.groups[nv.group]!;
      if (gu.length !== gv.length) {
        throw new CompileError({
          path: 'directives',
          message: `${nu.id} on devices [${gu.join(', ')}] feeds ${nv.id} on devices [${gv.join(', ')}]: data moves between groups rank by rank, so they need the same size`,
        });
      }
      let r = recvOf(u, nv.group);
      if (r === undefined) {
        const transfer = nu.id + toGroup[nv.group]!;
        const pass = nu.kind === 'compute' ? nu.op : 'F';
        const provenance = provenanceOf(nu.provenance.directive);
        // Explicit fields, no object spread: a spread plus extra fields is many times slower here.
        const send = p2pNode({
          op: 'SEND',
          id: `SEND.${transfer}`,
          block: nu.block,
          dims: nu.dims,
          group: nu.group,
          stream: (nu as ComputeNode).p2pStream ?? DEFAULT_P2P_STREAM,
          provenance,
          peerGroup: nv.group,
          bytes: e.bytes[j]!,
          transfer,
          pass,
        });
        const recv = p2pNode({
          op: 'RECV',
          id: `RECV.${transfer}`,
          block: nu.block,
          dims: nu.dims,
          group: nv.group,
          stream: (nv as ComputeNode).p2pStream ?? DEFAULT_P2P_STREAM,
          provenance: provenanceOf(nv.provenance.directive),
          peerGroup: nu.group,
          bytes: e.bytes[j]!,
          transfer,
          pass,
        });
        const s = base + a;
        added[a++] = send;
        r = base + a;
        added[a++] = recv;
        if (firstGroup[u]! < 0) {
          firstGroup[u] = nv.group;
          firstRecv[u] = r;
        } else moreRecvs.set(u * dag.groups.length + nv.group, r);
        push(u, s, EDGE_DATA, e.bytes[j]!);
        push(s, r, EDGE_DATA, e.bytes[j]!);
      }
      push(r, v, EDGE_DATA, e.bytes[j]!);
    }
    from.length = to.length = kind.length = bytes.length = w;
    added.length = a;
    const next = { ...dag, nodes: dag.nodes.concat(added), edges: { from, to, kind, bytes } };
    // SENDs and RECVs come after the compute nodes and are no compute nodes of a block.
    NodeIndex.carry(dag, next);
    return next;
  },
};
