/**
 * The DAG as the API answers it (nodes with their tags, edges by node id), written straight to
 * JSON text. Building the equivalent objects first (a tags record per node, an object per edge)
 * and then serialising them cost more than the compile of a typical design; here each node is
 * serialised once and the pieces shared by many nodes (a block's tags, a dimension's name, a
 * node id used by several edges) are serialised once per DAG.
 */
import { type Dag, type DagNode, isPassName, nodeTags } from '@stagecraft/ir';

export interface WireEdge {
  from: string;
  to: string;
  kind: 'data' | 'temporal';
  bytes?: number;
}

/**
 * Each node's own fields as JSON text, for the DAGs of one answer: passes share the nodes they do
 * not rewrite (never mutating them), so with `snapshots: "full"` a node is serialised once for
 * all the DAGs it is in rather than once per pass.
 */
export type NodeTexts = Map<DagNode, string>;

/** `{"nodes": [...], "edges": [...], "groups", "dims", "streams"}` as JSON text. */
export function wireDagJson(dag: Dag, texts?: NodeTexts): string {
  const { nodes } = dag;
  const ids = new Array<string>(nodes.length);
  const parts = new Array<string>(nodes.length);
  const tagsOf = tagWriter(dag);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    ids[i] = JSON.stringify(n.id);
    let fields = texts?.get(n);
    if (fields === undefined) {
      fields = JSON.stringify(n);
      texts?.set(n, fields);
    }
    // A node is a non-empty record: its text ends with "}" and has at least one field before it.
    parts[i] = `${fields.slice(0, -1)},"tags":${tagsOf(n)}}`;
  }
  const { from, to, kind, bytes } = dag.edges;
  const edges = new Array<string>(from.length);
  for (let j = 0; j < from.length; j++) {
    const head = `{"from":${ids[from[j]!]!},"to":${ids[to[j]!]!},"kind":`;
    edges[j] = kind[j] === 0 ? `${head}"data","bytes":${JSON.stringify(bytes[j]!)}}` : `${head}"temporal"}`;
  }
  return `{"nodes":[${parts.join(',')}],"edges":[${edges.join(',')}],"groups":${JSON.stringify(dag.groups)},"dims":${JSON.stringify(dag.dims)},"streams":${JSON.stringify(dag.streams)}}`;
}

/** Keys that look like array indices: objects list them first, whatever the insertion order. */
const INDEX = /^(0|[1-9]\d*)$/;

/**
 * `nodeTags(dag, node)` as JSON text: the block's tags, then one per split dimension the node
 * has an index in, then `PASS`. A block whose tags share a name with a dimension (the dimension's
 * value replaces the block's in place), or a name an object would reorder, goes through `nodeTags` itself, so the text always equals
 * `JSON.stringify(nodeTags(dag, node))`.
 */
function tagWriter(dag: Dag): (n: DagNode) => string {
  const dimNames = dag.dims.map((d) => JSON.stringify(d.name));
  const blockText = dag.blocks.map((b) => {
    const keys = Object.keys(b.tags);
    const clash = keys.some((k) => k === 'PASS' || INDEX.test(k) || dag.dims.some((d) => d.name === k));
    return clash ? undefined : JSON.stringify(b.tags).slice(1, -1);
  });
  const dimClash = dag.dims.some((d) => d.name === 'PASS' || INDEX.test(d.name));
  return (n) => {
    const block = n.block >= 0 ? blockText[n.block] : '';
    if (block === undefined || dimClash) return JSON.stringify(nodeTags(dag, n));
    let text = block;
    for (let i = 0; i < dimNames.length; i++) {
      const v = n.dims[i];
      if (v !== undefined && v >= 0) text += `${text === '' ? '' : ','}${dimNames[i]!}:${JSON.stringify(v)}`;
    }
    const pass = n.kind === 'compute' ? n.op : n.kind === 'p2p' ? n.pass : undefined;
    if (pass && isPassName(pass)) text += `${text === '' ? '' : ','}"PASS":"${pass}"`;
    return `{${text}}`;
  };
}
