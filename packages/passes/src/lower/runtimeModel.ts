/**
 * The `stagecraft/plan@2` model and batch sections: what a runtime builds real tensors from. The
 * model is the DAG's blocks with the forward data flow between them (which block's output feeds
 * which, across transfers too) and the block whose output the loss reads; the batch is the split
 * dimensions, the microbatch size and the data-parallel degree that fixes the loss scale.
 */
import {
  type Dag,
  type Design,
  EDGE_DATA,
  isCollectiveCode,
  OP_F,
  OP_RECV,
  OP_SEND,
  type Plan,
  type PlanBatch,
  type PlanModel,
  tableOf,
} from '@stagecraft/ir';
import { sequenceExchanges, tensorParallelCollectives } from './runtimeFields.ts';

/**
 * Gives `plan` its model section, made from `dag` when first read (or replaced when written), as
 * a compiled plan's instructions are: compiling and simulating never read it, while a runtime, an
 * export and the plan's JSON do, and it reads every edge of the DAG.
 */
export function lazyRuntimeModel(plan: Plan, dag: Dag): void {
  const settle = (model: PlanModel): void => {
    Object.defineProperty(plan, 'model', {
      value: model,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  };
  Object.defineProperty(plan, 'model', {
    get: () => {
      const model = runtimeModel(dag);
      settle(model);
      return model;
    },
    set: settle,
    enumerable: true,
    configurable: true,
  });
}

export function runtimeModel(dag: Dag): PlanModel {
  const t = tableOf(dag);
  const { op, source, block } = t;
  const inputs = dag.blocks.map(() => new Set<number>());
  const feeds = new Uint8Array(dag.blocks.length);
  const { from, to, kind } = dag.edges;
  // A collective between two forwards (an expert dispatch or combine, a tensor-parallel
  // reduction) passes on the forward that feeds it.
  const through = new Map<number, number>();
  // Most DAGs of a pipeline alone have no collective: one look at the op column, not the edges.
  let collectives = false;
  for (let i = 0; i < op.length && !collectives; i++) collectives = isCollectiveCode(op[i]!);
  // Not a K/V exchange of context parallelism: it carries no block's output on to another.
  const exchange = sequenceExchanges(t);
  const tensorParallel = tensorParallelCollectives(t);
  if (collectives) {
    // Sequence parallelism's all-gather follows its reduce-scatter: the forward feeding that one.
    const chained: [number, number][] = [];
    for (let e = 0; e < from.length; e++) {
      const u = from[e]!;
      const v = to[e]!;
      if (kind[e] !== EDGE_DATA || !isCollectiveCode(op[v]!) || exchange(v)) continue;
      if (op[u] === OP_F) through.set(v, u);
      else if (tensorParallel(u) && tensorParallel(v)) chained.push([u, v]);
    }
    for (const [u, v] of chained) {
      const f = through.get(u);
      if (f !== undefined) through.set(v, f);
    }
    // A scatter-gather send's all-gather follows its RECV: the forward the SEND's value came from.
    for (let e = 0; e < from.length; e++) {
      const u = from[e]!;
      const v = to[e]!;
      if (kind[e] !== EDGE_DATA || op[u] !== OP_RECV || !tensorParallel(v)) continue;
      const s = source[u]!;
      const f = s >= 0 && tensorParallel(s) ? through.get(s) : s;
      if (f !== undefined && f >= 0 && op[f] === OP_F) through.set(v, f);
    }
  }
  // Every microbatch repeats the same block edges: the last one seen per block skips the set.
  const lastInput = new Int32Array(dag.blocks.length).fill(-1);
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_DATA || op[to[e]!] !== OP_F) continue;
    // The forward op a value comes from: itself, through a SEND/RECV pair the SEND's producer, or
    // through a collective the forward feeding it.
    const v = from[e]!;
    const o = op[v]!;
    let u = o === OP_RECV || o === OP_SEND ? source[v]! : isCollectiveCode(o) ? (through.get(v) ?? v) : v;
    // Sent after its reduction: the forward that reduction passes on.
    if (u >= 0 && tensorParallel(u)) u = through.get(u) ?? u;
    if (u < 0 || op[u] !== OP_F) continue;
    const a = block[u]!;
    const b = block[to[e]!]!;
    if (a >= 0 && b >= 0 && a !== b && lastInput[b] !== a) {
      lastInput[b] = a;
      inputs[b]!.add(a);
      feeds[a] = 1;
    }
  }
  // The loss reads the output of the last block that feeds no other.
  let loss = dag.blocks.length - 1;
  while (loss > 0 && feeds[loss]) loss--;
  return {
    blocks: dag.blocks.map((b, i) => {
      const block: PlanModel['blocks'][number] = {
        name: b.name,
        tags: { ...b.tags },
        inputs: [...inputs[i]!].sort((x, y) => x - y),
      };
      if (b.experts !== undefined) block.experts = b.experts;
      if (b.topK !== undefined) block.topK = b.topK;
      return block;
    }),
    loss,
  };
}

export function runtimeBatch(dag: Dag, model: Design['model']): PlanBatch {
  const dims = dag.dims.map((d) => ({ name: d.name, size: d.size }));
  const microbatches = dims.reduce((n, d) => n * d.size, 1);
  // Data-parallel degree: the largest group that replicates blocks (its members read different data).
  // Context-parallel members read one sequence between them: their reduce's cp share is no replica.
  const cp = new Map<number, number>();
  for (const r of dag.contextParallel ?? []) cp.set(r.group, Math.max(cp.get(r.group) ?? 1, r.degree));
  let replicas = 1;
  for (const r of dag.dataParallel ?? [])
    replicas = Math.max(replicas, (r.degree ?? dag.groups[r.group]!.length) / (cp.get(r.group) ?? 1));
  const microbatchSize =
    model.kind === 'transformer' ? Math.max(1, Math.round(model.microbatchSize ?? 1)) : 1;
  return { dims, microbatches, microbatchSize, replicas, lossScale: 1 / (microbatches * replicas) };
}
