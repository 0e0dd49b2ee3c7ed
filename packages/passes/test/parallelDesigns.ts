/** Small MoE-shaped designs for the tests of replicate, shard, shard_tensor, recompute and offload. */
import type { Cluster, Dag, DagNode, Design, Directive, SyntheticBlock } from '@stagecraft/ir';
import { compile } from '../src/index.ts';

/** Per stage: an attention block (tags PP, TP=0) and an expert block (PP, EP=0, 4 experts, top-2). */
export function moeBlocks(stages: number): SyntheticBlock[] {
  const out: SyntheticBlock[] = [];
  for (let s = 0; s < stages; s++) {
    out.push({
      name: `attn ${s}`,
      tags: { PP: s, TP: 0 },
      F: 1,
      BI: 1,
      BW: 1,
      activationBytes: 100,
      paramBytes: 800,
      outputBytes: 10,
    });
    out.push({
      name: `experts ${s}`,
      tags: { PP: s, EP: 0 },
      F: 2,
      BI: 2,
      BW: 2,
      activationBytes: 200,
      paramBytes: 1600,
      outputBytes: 10,
      experts: 4,
      topK: 2,
    });
  }
  return out;
}

export function moeDesign(
  directives: Directive[],
  opts: { stages?: number; cluster?: Cluster } = {},
): Design {
  return {
    format: 'stagecraft/design@1',
    name: 'test',
    model: { kind: 'synthetic', blocks: moeBlocks(opts.stages ?? 2), tokensPerMicrobatch: 1000 },
    cluster: opts.cluster ?? { kind: 'ideal', devices: 4 },
    directives,
  };
}

/** Two stages on [0, 1] and [2, 3], two microbatches. */
export const PLACE_2x2: Directive[] = [
  { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
  { op: 'place', filter: { PP: 0 }, devices: [0, 1] },
  { op: 'place', filter: { PP: 1 }, devices: [2, 3] },
];

export function compiled(design: Design) {
  const r = compile(design);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r;
}

export function errorsOf(design: Design): string[] {
  const r = compile(design);
  if (r.ok) throw new Error('expected the design to be refused');
  return r.errors.map((e) => `${e.path}: ${e.message}`);
}

/** The DAG after the named pass. */
export function after(design: Design, pass: string): Dag {
  const r = compiled(design);
  const snap = r.snapshots.find((s) => s.pass === pass);
  if (!snap?.dag) throw new Error(`no DAG after ${pass}`);
  return snap.dag;
}

export const byId = (dag: Dag, id: string): DagNode => {
  const n = dag.nodes.find((x) => x.id === id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
};

/** Ids of the nodes with a data or temporal edge into / out of node `id`. */
export function preds(dag: Dag, id: string): string[] {
  const i = dag.nodes.findIndex((n) => n.id === id);
  const out: string[] = [];
  dag.edges.to.forEach((t, j) => {
    if (t === i) out.push(dag.nodes[dag.edges.from[j]!]!.id);
  });
  return out.sort();
}

export function succs(dag: Dag, id: string): string[] {
  const i = dag.nodes.findIndex((n) => n.id === id);
  const out: string[] = [];
  dag.edges.from.forEach((f, j) => {
    if (f === i) out.push(dag.nodes[dag.edges.to[j]!]!.id);
  });
  return out.sort();
}

export const ofKind = (dag: Dag, op: string) => dag.nodes.filter((n) => n.op === op);
