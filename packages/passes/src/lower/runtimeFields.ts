/**
 * The `stagecraft/plan@2` fields of single instructions, read off the DAG: which microbatch an op
 * works on and which blocks' gradients or parameters a collective carries. They exist so a runtime
 * never parses ids (docs/plan-format.md); the ids stay labels.
 */
import {
  allGatherChunks,
  type Dag,
  EDGE_DATA,
  EDGE_TEMPORAL,
  kindOfCode,
  type NodeTable,
  OP_ALL_GATHER,
  OP_ALL_REDUCE,
  OP_ALL_TO_ALL,
  OP_B,
  OP_BI,
  OP_BW,
  OP_F,
  OP_RECOMPUTE,
  OP_RECV,
  OP_REDUCE_SCATTER,
  OP_SEND,
  OP_UPD,
  type PlanChunks,
  type PlanTensor,
  REDUCE_SCATTER_CHUNKS,
} from '@stagecraft/ir';

/** The flat row-major index of node i over the DAG's split dimensions (an unsplit one counts as 0). */
export function microbatchOf(dag: Dag, t: NodeTable, i: number): number {
  let k = 0;
  for (let d = 0; d < dag.dims.length; d++) k = k * dag.dims[d]!.size + Math.max(0, t.dims[d]![i]!);
  return k;
}

/**
 * Per collective node that carries training state, the blocks it carries (sorted): a gradient
 * collective the blocks of the backward ops feeding it; a parameter all-gather after the optimizer
 * step (ZeRO-1/2) the blocks of its bucket's reduce-scatter (never another collective that starts at
 * the same block, such as DualPipe's all-reduce between its two copies); an all-gather before use
 * (ZeRO-3) the blocks of the ops it feeds. Activation collectives (expert dispatch and combine,
 * tensor-parallel reductions) carry none and are absent.
 */
export function collectiveParams(dag: Dag, t: NodeTable): Map<number, number[]> {
  const { from, to, kind } = dag.edges;
  const exchange = sequenceExchanges(t);
  const tensorParallel = tensorParallelCollectives(t);
  const into = new Map<number, Set<number>>();
  const outOf = new Map<number, Set<number>>();
  const afterUpd = new Set<number>();
  const add = (m: Map<number, Set<number>>, k: number, b: number) => {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(b);
  };
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_DATA) continue;
    const u = from[e]!;
    const v = to[e]!;
    const ou = t.op[u]!;
    const ov = t.op[v]!;
    // K/V exchanges and sequence parallelism's reduce-scatters and all-gathers carry activations,
    // whichever compute they sit between.
    if (exchange(u) || exchange(v) || tensorParallel(u) || tensorParallel(v)) continue;
    if (kindOfCode(ov) === 'collective' && (ou === OP_B || ou === OP_BW) && t.group[u] === t.group[v])
      add(into, v, t.block[u]!);
    if (ov === OP_ALL_GATHER && ou === OP_UPD) afterUpd.add(v);
    if (ou === OP_ALL_GATHER && (ov === OP_F || ov === OP_B || ov === OP_BI)) add(outOf, u, t.block[v]!);
  }
  const out = new Map<number, number[]>();
  // A bucket's reduce-scatter by (group, first block): its ZeRO-1/2 all-gather shares both. Only a
  // reduce-scatter has such a gather: an all-reduce keyed here too (the copies' one of DualPipe,
  // whose first block is a bucket's) would hand the gather its blocks instead.
  const bucketOf = new Map<string, number[]>();
  for (const [v, blocks] of into) {
    const op = t.op[v]!;
    if (op !== OP_ALL_REDUCE && op !== OP_REDUCE_SCATTER) continue;
    // A data-parallel all-reduce runs once per step; one of a microbatch is a tensor-parallel reduction.
    if (op === OP_ALL_REDUCE && t.dims.some((c) => c[v]! >= 0)) continue;
    const list = [...blocks].sort((a, b) => a - b);
    out.set(v, list);
    if (op === OP_REDUCE_SCATTER) bucketOf.set(`${t.group[v]}:${t.block[v]}`, list);
  }
  for (const v of afterUpd) {
    const list = bucketOf.get(`${t.group[v]}:${t.block[v]}`);
    if (list) out.set(v, list);
  }
  for (const [v, blocks] of outOf)
    if (!out.has(v))
      out.set(
        v,
        [...blocks].sort((a, b) => a - b),
      );
  return out;
}

/**
 * Per activation collective, the tensor it carries: for a tensor-parallel reduction (an ALL_REDUCE
 * of one microbatch) the block's partial output (F) or partial input gradient (B, BI) it sums; for
 * an expert ALL_TO_ALL the output of the forward (dispatch after the router, combine after the
 * experts) or the input gradient of the backward (combine's gradient after the block that read the
 * combined tokens, dispatch's after the experts) that feeds it; under sequence parallelism a
 * reduce-scatter the partial output or input gradient it sums and scatters, and the all-gather after
 * it (or after the RECV of a scattered send) that same tensor, gathered whole again.
 */
export function collectiveTensors(dag: Dag, t: NodeTable): Map<number, PlanTensor> {
  const { from, to, kind } = dag.edges;
  const out = new Map<number, PlanTensor>();
  // A K/V exchange carries the keys and values of the op it serves (its block, pass and microbatch).
  const exchange = sequenceExchanges(t);
  const tensorParallel = tensorParallelCollectives(t);
  const gathers: [number, number][] = [];
  for (let i = 0; i < t.length; i++) {
    if (!exchange(i)) continue;
    const op = t.pass[i]!;
    out.set(i, {
      block: t.block[i]!,
      pass: op === OP_F ? 'F' : op === OP_B ? 'B' : 'BI',
      microbatch: microbatchOf(dag, t, i),
    });
  }
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_DATA) continue;
    const u = from[e]!;
    const v = to[e]!;
    const cv = t.op[v]!;
    const activation =
      cv === OP_ALL_TO_ALL || (cv === OP_ALL_REDUCE && t.dims.some((c) => c[v]! >= 0)) || tensorParallel(v);
    if (!activation || t.group[u] !== t.group[v]) continue;
    // Sequence parallelism's all-gather after a reduce-scatter gathers the tensor that one scattered.
    if (tensorParallel(u)) {
      gathers.push([u, v]);
      continue;
    }
    // A received input gradient carries the pass that made it (an expert combine's gradient
    // often arrives from the next stage); so does a K/V gradient's reduce-scatter, which a
    // context-parallel block's input gradient leaves through before tensor parallelism sums it.
    const op = t.op[u] === OP_RECV || exchange(u) ? t.pass[u]! : t.op[u]!;
    // A collective repeated after a RECOMPUTE carries the forward's output again, made anew.
    if (op !== OP_F && op !== OP_B && op !== OP_BI && op !== OP_RECOMPUTE) continue;
    out.set(v, {
      block: t.block[u]!,
      pass: op === OP_F || op === OP_RECOMPUTE ? 'F' : op === OP_B ? 'B' : 'BI',
      microbatch: microbatchOf(dag, t, u),
    });
  }
  for (const [u, v] of gathers) {
    const scattered = out.get(u);
    if (scattered !== undefined) out.set(v, scattered);
  }
  // comm_overlap's two parts of one collective carry one tensor: the part without a data edge
  // (the hidden reduce-scatter, the all-gather's rest) the other's.
  for (const [first, second] of overlapPairs(dag, t)) {
    const tensor = out.get(first) ?? out.get(second);
    if (tensor === undefined) continue;
    out.set(first, tensor);
    out.set(second, tensor);
  }
  return out;
}

/**
 * Per part of a collective `comm_overlap` cut in two (tensorParallelOverlap.ts), the chunks of its
 * tensor's rows it carries, given its members' count n: a reduce-scatter's hidden part chunks 0 to
 * c − 2 of c and the part after its producer the last; an all-gather's first part chunk 0 of n and
 * its rest the others.
 */
export function collectiveChunks(dag: Dag, t: NodeTable): Map<number, (n: number) => PlanChunks> {
  const out = new Map<number, (n: number) => PlanChunks>();
  for (const [first, second] of overlapPairs(dag, t)) {
    if (t.op[first] === OP_REDUCE_SCATTER) {
      const c = REDUCE_SCATTER_CHUNKS;
      out.set(first, () => ({ from: 0, to: c - 1, of: c }));
      out.set(second, () => ({ from: c - 1, to: c, of: c }));
    } else {
      out.set(first, (n) => ({ from: 0, to: 1, of: allGatherChunks(n) }));
      out.set(second, (n) => ({ from: 1, to: allGatherChunks(n), of: allGatherChunks(n) }));
    }
  }
  return out;
}

/**
 * The (earlier, later) parts of each collective comm_overlap cut in two: a temporal edge between
 * two reduce-scatters or two all-gathers of the shard-tensor pass on one block and microbatch.
 */
function overlapPairs(dag: Dag, t: NodeTable): [number, number][] {
  const { from, to, kind } = dag.edges;
  const made = t.names.indexOf('shard-tensor');
  const pairs: [number, number][] = [];
  if (made < 0) return pairs;
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_TEMPORAL) continue;
    const u = from[e]!;
    const v = to[e]!;
    const op = t.op[u]!;
    if (op !== t.op[v] || (op !== OP_REDUCE_SCATTER && op !== OP_ALL_GATHER)) continue;
    if (t.provPass[u] !== made || t.provPass[v] !== made || t.block[u] !== t.block[v]) continue;
    if (microbatchOf(dag, t, u) !== microbatchOf(dag, t, v)) continue;
    pairs.push([u, v]);
  }
  return pairs;
}

/**
 * Whether node i is a collective of tensor parallelism: made by the shard-tensor pass (its
 * all-reduces, and under sequence parallelism its reduce-scatters and all-gathers of activations),
 * or repeated by the recompute pass after a RECOMPUTE (the only collectives that pass makes).
 */
export function tensorParallelCollectives(t: NodeTable): (i: number) => boolean {
  const made = t.names.indexOf('shard-tensor');
  const repeated = t.names.indexOf('recompute');
  return (i) =>
    made >= 0 &&
    (t.provPass[i] === made || (repeated >= 0 && t.provPass[i] === repeated)) &&
    kindOfCode(t.op[i]!) === 'collective';
}

/**
 * Per SEND and RECV of a tensor-parallel stage's scatter-gather send (shardTensor.ts), the
 * all-gather that makes the received chunk whole again: its members are the n the tensor's rows
 * were split into.
 */
export function scatteredTransfers(dag: Dag, t: NodeTable): Map<number, number> {
  const { from, to, kind } = dag.edges;
  const tensorParallel = tensorParallelCollectives(t);
  const out = new Map<number, number>();
  for (let e = 0; e < from.length; e++)
    if (
      kind[e] === EDGE_DATA &&
      t.op[from[e]!] === OP_RECV &&
      t.op[to[e]!] === OP_ALL_GATHER &&
      tensorParallel(to[e]!)
    )
      out.set(from[e]!, to[e]!);
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_DATA || t.op[from[e]!] !== OP_SEND) continue;
    const gather = out.get(to[e]!);
    if (gather !== undefined) out.set(from[e]!, gather);
  }
  return out;
}

/** Whether node i is a K/V exchange of context parallelism (made by the shard-sequence pass). */
export function sequenceExchanges(t: NodeTable): (i: number) => boolean {
  const made = t.names.indexOf('shard-sequence');
  return (i) => made >= 0 && t.provPass[i] === made && kindOfCode(t.op[i]!) === 'collective';
}

/**
 * Per K/V exchange of a ring-form context-parallel region, its steps: cp − 1, each passing one
 * member's chunk (or the gradient accumulated for it) to the next member around the ring.
 */
export function ringExchanges(dag: Dag, t: NodeTable): Map<number, number> {
  const out = new Map<number, number>();
  const ring = new Map<string, number>();
  for (const r of dag.contextParallel ?? [])
    if (r.form === 'ring' && r.degree > 1)
      for (const b of r.blocks) ring.set(`${r.group}:${b}`, r.degree - 1);
  if (ring.size === 0) return out;
  const exchange = sequenceExchanges(t);
  for (let i = 0; i < t.length; i++) {
    const steps = exchange(i) ? ring.get(`${t.group[i]}:${t.block[i]}`) : undefined;
    if (steps !== undefined) out.set(i, steps);
  }
  return out;
}
