/**
 * `replicate` (Piper): data parallelism of a region over its device group. Every member holds the
 * region's parameters and runs its own data; gradients are synchronised per bucket:
 * - plain: one ALL_REDUCE per bucket once every microbatch's weight gradient of the bucket is ready;
 * - ZeRO-1 (`shard_optimizer`, Stagecraft's own field): REDUCE_SCATTER per bucket after the last
 *   microbatch, each member steps its 1/n of the optimizer states, then ALL_GATHER of the updated
 *   parameters after UPD (Megatron's distributed optimizer, DeepSpeed stage 1);
 * - ZeRO-2 (`shard_grads`): REDUCE_SCATTER per bucket after every microbatch, so only a 1/n
 *   gradient shard is kept between microbatches, and the ALL_GATHER after UPD;
 * - ZeRO-3 (`shard_params`): as ZeRO-2, and parameters are sharded too: ALL_GATHER of a block's
 *   parameters before each of its F and again before each B/BI (resharded in between, so the
 *   gathered copy lives only while the op runs); no ALL_GATHER after UPD.
 * Collectives run on `reduce_stream` / `gather_stream` (Piper's default: the compute stream).
 * Blocks a `shard` directive covers on the same group are expert parallel, not replicated, and
 * are left out (as Piper does). The ZeRO stage of each block is recorded in `dag.dataParallel`
 * for the memory model.
 */
import {
  type CollectiveOp,
  CompileError,
  type ComputeNode,
  collectiveNode,
  type Dag,
  type DagNode,
  type DataParallelRegion,
  EDGE_DATA,
  formatPath,
  patchCompute,
} from '@stagecraft/ir';
import { inEdges } from '../adjacency.ts';
import { deviceCount } from '../cluster.ts';
import { NodeIndex } from '../nodeIndex.ts';
import type { Pass } from '../pass.ts';
import { directivesOf } from '../program.ts';
import { EdgeColumns } from './edgeColumns.ts';
import { dimsSuffix, familyOf, regionOf } from './region.ts';

export const DEFAULT_COMM_STREAM = 'compute';

const byGroupCache = new WeakMap<Dag, number[][]>();
/** Compute nodes of each group, built once per DAG (programs replicate every group). */
function computeOnGroup(dag: Dag, group: number): number[] {
  let all = byGroupCache.get(dag);
  if (!all) {
    all = dag.groups.map(() => []);
    dag.nodes.forEach((n, i) => {
      if (n.kind === 'compute' && n.group >= 0) all![n.group]!.push(i);
    });
    byGroupCache.set(dag, all);
  }
  return all[group] ?? [];
}

export const replicatePass: Pass = {
  name: 'replicate',
  run(dag, ctx) {
    const reps = directivesOf(ctx.program, 'replicate');
    if (reps.length === 0) return dag;
    const index = new NodeIndex(dag);
    const devices = deviceCount(ctx.design.cluster);
    const nodes: DagNode[] = dag.nodes.slice();
    const edges = new EdgeColumns(dag.edges);
    const inc = inEdges(dag.nodes.length, dag.edges);
    const regions: DataParallelRegion[] = [...(dag.dataParallel ?? [])];
    // Expert-parallel blocks per group: not replicated.
    const sharded = new Set<string>();
    for (const { d, path } of directivesOf(ctx.program, 'shard')) {
      const r = regionOf(dag, index, d, path, devices);
      for (const b of r.blocks) sharded.add(`${r.group}:${b}`);
    }
    const updOf = new Map<number, number>();
    dag.nodes.forEach((n, i) => {
      if (n.kind === 'compute' && n.op === 'UPD') updOf.set(n.group, i);
    });
    const covered = new Map<string, string>();

    for (const { d, index: di, path } of reps) {
      const r = regionOf(dag, index, d, path, devices);
      const group = r.group;
      const members = dag.groups[group]!;
      const n = members.length;
      const zero: 0 | 1 | 2 | 3 = d.shard_params ? 3 : d.shard_grads ? 2 : d.shard_optimizer ? 1 : 0;
      const blocks = r.blocks.filter((b) => !sharded.has(`${group}:${b}`));
      for (const b of blocks) {
        const k = `${group}:${b}`;
        const prev = covered.get(k);
        if (prev)
          throw new CompileError({
            path: formatPath([...path, 'filter']),
            message: `block ${b} (${dag.blocks[b]!.name}) on devices [${members.join(', ')}] is already replicated by ${prev}`,
          });
        covered.set(k, formatPath(path));
      }
      regions.push({ group, blocks, zero, directive: di });
      if (n === 1 || blocks.length === 0) continue;
      const provenance = { pass: 'replicate', directive: di };
      const reduceStream = d.reduce_stream ?? DEFAULT_COMM_STREAM;
      const gatherStream = d.gather_stream ?? reduceStream;
      const upd = updOf.get(group);
      const blockSet = new Set(blocks);
      // Weight-gradient ops (B or BW) of the region's blocks on this group, per block.
      const grads = new Map<number, number[]>();
      const users: number[] = []; // F and B/BI that need full parameters (ZeRO-3)
      for (const i of computeOnGroup(dag, group)) {
        const x = dag.nodes[i] as ComputeNode;
        if (!blockSet.has(x.block)) continue;
        if (x.op === 'B' || x.op === 'BW') {
          let l = grads.get(x.block);
          if (!l) grads.set(x.block, (l = []));
          l.push(i);
        }
        if (x.op === 'F' || x.op === 'B' || x.op === 'BI') users.push(i);
      }
      // Buckets in backward order (last block first), filled up to bucket_size bytes of gradients.
      const buckets: number[][] = [];
      let fill = 0;
      for (const b of [...blocks].reverse()) {
        const bytes = dag.blocks[b]!.paramBytes;
        const last = buckets[buckets.length - 1];
        if (d.bucket_size !== undefined && last && fill + bytes <= d.bucket_size) {
          last.push(b);
          fill += bytes;
        } else {
          buckets.push([b]);
          fill = bytes;
        }
      }
      const add = (
        op: CollectiveOp,
        id: string,
        block: number,
        dims: readonly number[],
        stream: string,
        bytes: number,
      ) => {
        const v = nodes.length;
        nodes.push(
          collectiveNode({ op, id, block, dims, group, stream, provenance, devices: members, bytes }),
        );
        return v;
      };
      const noDims = dag.dims.map(() => -1);
      const tag = `d${members[0]}`;
      buckets.forEach((bucket, k) => {
        const bytes = bucket.reduce((s, b) => s + dag.blocks[b]!.paramBytes, 0);
        const ops = bucket.flatMap((b) => grads.get(b) ?? []);
        if (ops.length === 0) return;
        const after: number[] = [];
        if (zero <= 1) {
          const op: CollectiveOp = zero === 0 ? 'ALL_REDUCE' : 'REDUCE_SCATTER';
          const v = add(op, `${op}.grads.${tag}.k${k}`, bucket[0]!, noDims, reduceStream, bytes);
          for (const u of ops) edges.push(u, v);
          after.push(v);
        } else {
          // One reduce-scatter per microbatch: gradients stay sharded between microbatches.
          const perMb = new Map<string, number[]>();
          for (const u of ops) {
            const key = nodes[u]!.dims.join(',');
            let l = perMb.get(key);
            if (!l) perMb.set(key, (l = []));
            l.push(u);
          }
          for (const list of perMb.values()) {
            const dims = nodes[list[0]!]!.dims;
            const v = add(
              'REDUCE_SCATTER',
              `REDUCE_SCATTER.grads.${tag}.k${k}${dimsSuffix(dag, dims)}`,
              bucket[0]!,
              dims,
              reduceStream,
              bytes,
            );
            for (const u of list) edges.push(u, v);
            after.push(v);
          }
        }
        if (upd === undefined) return;
        for (const v of after) edges.push(v, upd);
        if (zero === 1 || zero === 2) {
          const ag = add(
            'ALL_GATHER',
            `ALL_GATHER.params.${tag}.k${k}`,
            bucket[0]!,
            noDims,
            gatherStream,
            bytes,
          );
          edges.push(upd, ag);
        }
      });
      if (zero === 3) gatherBeforeUse(dag, nodes, edges, inc, users, add, gatherStream, n);
    }
    return { ...dag, nodes, edges: edges.list(), dataParallel: regions };
  },
};

/**
 * ZeRO-3: an ALL_GATHER of the block's parameters before each F and B/BI. It is issued when the
 * op before it in the same pass on this group becomes runnable (FSDP's one-ahead prefetch), and
 * the gathered (n−1)/n of the parameters is allocated with the op and released when it ends.
 */
function gatherBeforeUse(
  dag: Dag,
  nodes: DagNode[],
  edges: EdgeColumns,
  inc: { offset: Int32Array; edge: Int32Array },
  users: number[],
  add: (
    op: CollectiveOp,
    id: string,
    block: number,
    dims: readonly number[],
    stream: string,
    bytes: number,
  ) => number,
  stream: string,
  n: number,
): void {
  const e = dag.edges;
  const sameFamilyInputs = (i: number): number[] => {
    const x = dag.nodes[i] as ComputeNode;
    const fam = familyOf(x.op);
    const out: number[] = [];
    for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
      const j = inc.edge[k]!;
      if (e.kind[j] !== EDGE_DATA) continue;
      const u = e.from[j]!;
      const nu = dag.nodes[u]!;
      if (nu.group !== x.group) continue;
      const fu = nu.kind === 'compute' ? familyOf(nu.op) : nu.kind === 'p2p' ? familyOf(nu.pass) : null;
      if (fu === fam) out.push(u);
    }
    return out;
  };
  for (const i of users) {
    const x = dag.nodes[i] as ComputeNode;
    const full = dag.blocks[x.block]!.paramBytes;
    const v = add('ALL_GATHER', `ALL_GATHER.${x.id}`, x.block, x.dims, stream, full);
    // Prefetch: wait for what the previous op of the chain waits for, else for this op's own inputs.
    const preds = sameFamilyInputs(i);
    const chain = preds.find((u) => dag.nodes[u]!.kind === 'compute');
    for (const u of chain !== undefined ? sameFamilyInputs(chain) : preds) edges.push(u, v);
    edges.push(v, i);
    const gathered = (full * (n - 1)) / n;
    const cur = nodes[i] as ComputeNode;
    nodes[i] = patchCompute(cur, {
      allocBytes: cur.allocBytes + gathered,
      freeBytes: cur.freeBytes + gathered,
    });
  }
}
