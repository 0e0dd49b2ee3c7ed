/**
 * Every data edge that crosses device groups becomes SEND on the producer's group and RECV on the
 * consumer's, on the stream the producer's (resp. consumer's) `place` named. Consumers of one
 * output on one group share a single transfer. Groups exchange data rank by rank, so both must
 * have the same size.
 */
import {
  CompileError,
  EDGE_DATA,
  type EdgeList,
  edgeColumns,
  firstEdges,
  grow,
  headroom,
  meshName,
  Names,
  type NodeTable,
  nodeIdOf,
  OP_F,
  OP_RECV,
  OP_SEND,
  OP_UPD,
  type OwnTable,
  sameMesh,
  tableOf,
  truncate,
} from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { NodeIndex } from '../program/nodeIndex.ts';

export const DEFAULT_P2P_STREAM = 'p2p';

export const insertSendRecvPass: Pass = {
  name: 'insert-send-recv',
  reads: [],
  writes: [],
  run(dag, ctx) {
    const e = dag.edges;
    const t = tableOf(dag);
    const groupOf = t.group;
    let crossing = 0;
    for (let j = 0; j < e.from.length; j++) {
      if (e.kind[j] === EDGE_DATA && groupOf[e.from[j]!] !== groupOf[e.to[j]!]) crossing++;
    }
    if (crossing === 0) return dag;
    if (t.length + 2 * crossing > ctx.options.maxOps) {
      throw new CompileError({
        path: '',
        message: `the design has ${(t.length + 2 * crossing).toLocaleString('en-US')} ops, over the limit of ${ctx.options.maxOps.toLocaleString('en-US')}`,
      });
    }
    // Rows for the most there can be (a transfer per crossing edge), cut to length at the end.
    // Room after them for what later passes append to the nodes: a UPD per group, and more.
    const out = grow(t, 2 * crossing, [], dag.groups.length + 1024);
    const names = new Names(t.names);
    const pass = names.index('insert-send-recv');
    const defaultStream = names.index(DEFAULT_P2P_STREAM);
    let a = t.length;
    // Columns allocated once at their largest size (every crossing edge its own transfer) and
    // cut to length at the end: growing them by pushes would reallocate each several times.
    // Room after them for `order`'s temporal edges, about one per op ordered (the compute ops).
    const cap = e.from.length + 2 * crossing;
    const cols = edgeColumns(cap, headroom(cap) + t.length);
    let w = 0;
    // (producer, destination group) → RECV row: the first destination of a producer in typed
    // arrays (an output mostly goes to one other group), any further ones in a Map.
    const firstGroup = ctx.scratch.int32(t.length, -1);
    const firstRecv = ctx.scratch.int32(t.length);
    const moreRecvs = new Map<number, number>();
    const G = dag.groups.length;
    for (let j = 0; j < e.from.length; j++) {
      const u = e.from[j]!;
      const v = e.to[j]!;
      const gu = groupOf[u]!;
      const gv = groupOf[v]!;
      if (e.kind[j] !== EDGE_DATA || gu === gv) {
        edgeAt(cols, w++, u, v, e.kind[j]!, e.bytes[j]!);
        continue;
      }
      const du = dag.groups[gu]!;
      const dv = dag.groups[gv]!;
      if (du.length !== dv.length) {
        throw new CompileError({
          path: 'directives',
          message: `${nodeIdOf(dag, u)} on devices [${du.join(', ')}] feeds ${nodeIdOf(dag, v)} on devices [${dv.join(', ')}]: data moves between groups rank by rank, so they need the same size`,
        });
      }
      // Member r of one mesh faces member r of the other: the same coordinates only on equal meshes.
      if (dag.meshes && !sameMesh(dag.meshes[gu], dag.meshes[gv])) {
        const name = (g: number) => (dag.meshes![g] ? `mesh ${meshName(dag.meshes![g]!)}` : 'no mesh');
        throw new CompileError({
          path: 'directives',
          message: `${nodeIdOf(dag, u)} on ${name(gu)} feeds ${nodeIdOf(dag, v)} on ${name(gv)}: data moves between groups member by member, so both need the same mesh (axes and sizes)`,
        });
      }
      let r =
        firstGroup[u] === gv ? firstRecv[u]! : firstGroup[u]! < 0 ? -1 : (moreRecvs.get(u * G + gv) ?? -1);
      if (r < 0) {
        const b = e.bytes[j]!;
        const su = t.p2pStream[u]!;
        const sv = t.p2pStream[v]!;
        const s = a++;
        p2pRow(out, t, s, OP_SEND, u, gu, gv, su >= 0 ? su : defaultStream, pass, t.provDirective[u]!, b);
        r = a++;
        p2pRow(out, t, r, OP_RECV, u, gv, gu, sv >= 0 ? sv : defaultStream, pass, t.provDirective[v]!, b);
        if (firstGroup[u]! < 0) {
          firstGroup[u] = gv;
          firstRecv[u] = r;
        } else moreRecvs.set(u * G + gv, r);
        edgeAt(cols, w++, u, s, EDGE_DATA, b);
        edgeAt(cols, w++, s, r, EDGE_DATA, b);
      }
      edgeAt(cols, w++, r, v, EDGE_DATA, e.bytes[j]!);
    }
    const table = a === out.length ? out : truncate(out, a);
    table.names = names.names;
    const next = rewritten(dag, ctx, { edges: firstEdges(cols, w) }, table);
    // SENDs and RECVs come after the compute nodes and are no compute nodes of a block.
    NodeIndex.carry(dag, next);
    return next;
  },
};

/** Edge w of `e`. Module functions, not closures made per run: one call target for the JIT. */
function edgeAt(e: EdgeList, w: number, u: number, v: number, kind: number, bytes: number): void {
  e.from[w] = u;
  e.to[w] = v;
  e.kind[w] = kind;
  e.bytes[w] = bytes;
}

/**
 * Row r of `out`, a SEND or RECV of what producer u of `t` outputs, on `group` with `peer` on the
 * other side. Its id and transfer follow from the producer's id and the receiving group.
 */
function p2pRow(
  out: OwnTable,
  t: NodeTable,
  r: number,
  op: number,
  u: number,
  group: number,
  peer: number,
  stream: number,
  pass: number,
  directive: number,
  bytes: number,
): void {
  out.op[r] = op;
  out.block[r] = t.block[u]!;
  for (let d = 0; d < t.dims.length; d++) out.dims[d]![r] = t.dims[d]![u]!;
  out.group[r] = group;
  out.stream[r] = stream;
  out.provPass[r] = pass;
  out.provDirective[r] = directive;
  out.bytes[r] = bytes;
  out.peer[r] = peer;
  out.pass[r] = t.op[u]! <= OP_UPD ? t.op[u]! : OP_F;
  out.source[r] = u;
}
