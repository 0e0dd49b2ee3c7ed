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
import type { Pass } from '../pass.ts';

export const DEFAULT_P2P_STREAM = 'p2p';

export const insertSendRecvPass: Pass = {
  name: 'insert-send-recv',
  run(dag, ctx) {
    const e = dag.edges;
    let crossing = 0;
    for (let j = 0; j < e.from.length; j++) {
      if (e.kind[j] === EDGE_DATA && dag.nodes[e.from[j]!]!.group !== dag.nodes[e.to[j]!]!.group) crossing++;
    }
    if (crossing === 0) return dag;
    if (dag.nodes.length + 2 * crossing > ctx.options.maxOps) {
      throw new CompileError({
        path: '',
        message: `the design has ${(dag.nodes.length + 2 * crossing).toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
      });
    }
    const nodes: DagNode[] = dag.nodes.slice();
    const from: number[] = [];
    const to: number[] = [];
    const kind: EdgeKind[] = [];
    const bytes: number[] = [];
    const push = (u: number, v: number, k: EdgeKind, b: number) => {
      from.push(u);
      to.push(v);
      kind.push(k);
      bytes.push(b);
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
    const recvOf = (u: number, g: number): number | undefined =>
      firstGroup[u] === g
        ? firstRecv[u]
        : firstGroup[u]! < 0
          ? undefined
          : moreRecvs.get(u * dag.groups.length + g);
    for (let j = 0; j < e.from.length; j++) {
      const u = e.from[j]!;
      const v = e.to[j]!;
      const nu = dag.nodes[u]!;
      const nv = dag.nodes[v]!;
      if (e.kind[j] !== EDGE_DATA || nu.group === nv.group) {
        push(u, v, e.kind[j]!, e.bytes[j]!);
        continue;
      }
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
        const transfer = `${nu.id}.d${gv[0]}`;
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
        const s = nodes.length;
        nodes.push(send);
        r = nodes.length;
        nodes.push(recv);
        if (firstGroup[u]! < 0) {
          firstGroup[u] = nv.group;
          firstRecv[u] = r;
        } else moreRecvs.set(u * dag.groups.length + nv.group, r);
        push(u, s, EDGE_DATA, e.bytes[j]!);
        push(s, r, EDGE_DATA, e.bytes[j]!);
      }
      push(r, v, EDGE_DATA, e.bytes[j]!);
    }
    return { ...dag, nodes, edges: { from, to, kind, bytes } };
  },
};
