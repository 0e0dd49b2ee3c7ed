/**
 * DualPipe keeps two copies of the model, one per direction: stage i's weights live on rank i for
 * one and on rank P−1−i for the other, and the two copies' gradients must be summed before the
 * optimizer step, or a runtime trains two diverging models. Generally: a block whose weight
 * gradients (B or BW) are made on several groups has a copy on each, and those groups all-reduce
 * the copies' gradients before their UPD. One ALL_REDUCE per set of groups sharing blocks, of the
 * gradient bytes a device holds for them (after expert and tensor sharding, as the memory model
 * counts them): one node per group, on its compute stream after its last backward, which
 * `dag.jointCollectives` makes one collective.
 *
 * On groups of more than one device (data parallel, as DeepSeek-V3 runs DualPipe) member r of one
 * group pairs with member r of the other, the member holding the same data replica (mesh
 * coordinates): k concurrent 2-member all-reduces (collectiveMembers.ts), never one over the
 * replicas as well. That is DualPipe's own: `DualPipe(modules, process_group=…)` runs within one
 * pipeline's process group, and its example sums each copy's gradient with the one of rank
 * P−1−r of that group (github.com/deepseek-ai/DualPipe, examples/example_dualpipe.py, "Check
 * grads"). The pair sums before the data-parallel gradient collective of the same blocks (an
 * all-reduce, or ZeRO-1's reduce-scatter, which leaves each member only its chunk): that collective
 * then sums the replicas of the summed copies. ZeRO-2/3 reduce-scatter every microbatch's
 * gradients, so no member ever holds a whole gradient to pair: refused, naming the directive.
 */
import {
  CompileError,
  type Dag,
  EDGE_DATA,
  EDGE_TEMPORAL,
  formatPath,
  type NodeTable,
  OP_ALL_REDUCE,
  OP_B,
  OP_BW,
  OP_REDUCE_SCATTER,
  OP_UPD,
  tableOf,
  withEntries,
} from '@stagecraft/ir';
import { EdgeColumns } from '../dag/edgeColumns.ts';
import { RowAppend } from '../dag/rowAppend.ts';
import { type Pass, rewritten } from '../driver/pass.ts';
import { trainingState } from '../lower/trainingState.ts';

/** The stream the copies' all-reduce runs on: the optimizer step waits for it anyway. */
export const COPIES_STREAM = 'compute';

export const reduceCopiesPass: Pass = {
  name: 'reduce-copies',
  // The replicate directives: a refusal names the one sharding gradients.
  reads: ['replicate'],
  writes: [],
  run(dag, ctx) {
    const t = tableOf(dag);
    // Groups making weight gradients of each block: the first in a column, any others in a set
    // (most blocks have one group, and a set per backward op cost most of this pass); blocks in
    // the order their first weight gradient comes.
    const firstGroup = new Int32Array(dag.blocks.length).fill(-1);
    const blocksSeen: number[] = [];
    const groupsOf = new Map<number, Set<number>>();
    for (let i = 0; i < t.length; i++) {
      const op = t.op[i]!;
      if ((op !== OP_B && op !== OP_BW) || t.group[i]! < 0 || t.block[i]! < 0) continue;
      const b = t.block[i]!;
      const g = t.group[i]!;
      const first = firstGroup[b]!;
      if (first < 0) {
        firstGroup[b] = g;
        blocksSeen.push(b);
      } else if (first !== g) {
        const s = groupsOf.get(b);
        if (s) s.add(g);
        else groupsOf.set(b, new Set([first, g]));
      }
    }
    // Blocks per set of groups holding copies of them.
    const sets = new Map<string, { groups: number[]; blocks: number[] }>();
    for (const b of blocksSeen) {
      const gs = groupsOf.get(b);
      if (!gs) continue;
      const groups = [...gs].sort((a, c) => a - c);
      const key = groups.join(',');
      let e = sets.get(key);
      if (!e) sets.set(key, (e = { groups, blocks: [] }));
      e.blocks.push(b);
    }
    if (sets.size === 0) return dag;
    const gradientCollectives = dataParallelReductions(dag, t);
    const updOf = new Map<number, number>();
    for (let i = 0; i < t.length; i++) if (t.op[i] === OP_UPD) updOf.set(t.group[i]!, i);
    const rows = new RowAppend(t, 'reduce-copies');
    const edges = new EdgeColumns(dag.edges);
    const joint: (readonly number[])[] = [...(dag.jointCollectives ?? [])];
    const explicit: [number, readonly number[]][] = [];
    for (const { groups, blocks } of sets.values()) {
      refuseShardedGradients(dag, groups, blocks, ctx.program);
      const devices = groups.flatMap((g) => dag.groups[g]!).sort((a, c) => a - c);
      const name = `ALL_REDUCE.copies.${groups.map((g) => `d${dag.groups[g]![0]}`).join('-')}`;
      const bytes = trainingState(dag, groups[0]!, blocks).grads;
      const nodes = groups.map((g, k) => {
        const v = rows.add({
          op: OP_ALL_REDUCE,
          like: -1,
          block: blocks[0]!,
          group: g,
          stream: COPIES_STREAM,
          directive: -1,
          bytes,
          // The first names the collective: its id is what every member's plan shows.
          id: k === 0 ? name : `${name}.on.d${dag.groups[g]![0]}`,
        });
        explicit.push([v, devices]);
        const upd = updOf.get(g);
        if (upd !== undefined) edges.push(v, upd);
        // Before the replicas sum: the pair sums the copies of one replica first.
        for (const [c, b] of gradientCollectives.get(g) ?? [])
          if (blocks.includes(b)) edges.push(v, c, 0, EDGE_TEMPORAL);
        return v;
      });
      const blockSet = new Set(blocks);
      const nodeOf = new Map(groups.map((g, k) => [g, nodes[k]!]));
      for (let i = 0; i < t.length; i++) {
        const op = t.op[i]!;
        if ((op === OP_B || op === OP_BW) && blockSet.has(t.block[i]!)) {
          const v = nodeOf.get(t.group[i]!);
          if (v !== undefined) edges.push(i, v);
        }
      }
      joint.push(nodes);
    }
    const out = rows.table();
    out.devices = withEntries(t.devices, explicit);
    return rewritten(dag, ctx, { edges: edges.list(), jointCollectives: joint }, out);
  },
};

/**
 * Per group, its data-parallel gradient collectives of a whole step (all-reduce or ZeRO-1
 * reduce-scatter: fed by backwards of its own group, split along no microbatch dimension, which
 * leaves out tensor-parallel reductions), each with a block it carries.
 */
function dataParallelReductions(dag: Dag, t: NodeTable): Map<number, [number, number][]> {
  const out = new Map<number, [number, number][]>();
  const seen = new Set<string>();
  const { from, to, kind } = dag.edges;
  for (let e = 0; e < from.length; e++) {
    if (kind[e] !== EDGE_DATA) continue;
    const u = from[e]!;
    const v = to[e]!;
    if (t.op[u] !== OP_B && t.op[u] !== OP_BW) continue;
    if (t.op[v] !== OP_ALL_REDUCE && t.op[v] !== OP_REDUCE_SCATTER) continue;
    const g = t.group[v]!;
    if (t.group[u] !== g || t.dims.some((c) => c[v]! >= 0)) continue;
    const key = `${v}:${t.block[u]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let list = out.get(g);
    if (!list) out.set(g, (list = []));
    list.push([v, t.block[u]!]);
  }
  return out;
}

/** Copies on data-parallel groups whose gradients ZeRO-2/3 shard every microbatch: nothing to pair. */
function refuseShardedGradients(
  dag: Dag,
  groups: readonly number[],
  blocks: readonly number[],
  program: readonly { path: readonly (string | number)[] }[],
): void {
  for (const r of dag.dataParallel ?? []) {
    if (r.zero < 2 || !groups.includes(r.group) || (r.degree ?? dag.groups[r.group]!.length) < 2) continue;
    const b = r.blocks.find((x) => blocks.includes(x));
    if (b === undefined) continue;
    const field = r.zero >= 3 ? 'shard_params' : 'shard_grads';
    throw new CompileError({
      path: formatPath([...(program[r.directive]?.path ?? ['directives']), field]),
      message:
        `block ${b} (${dag.blocks[b]!.name}) has a DualPipe copy on devices [${dag.groups[r.group]!.join(', ')}], ` +
        `whose two copies must sum whole gradients before the data-parallel reduction; ${field} reduce-scatters ` +
        "every microbatch's gradients, so none is whole: use shard_optimizer (ZeRO-1) with DualPipe",
    });
  }
}
