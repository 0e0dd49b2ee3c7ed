/**
 * DualPipe keeps two copies of the model, one per direction: stage i's weights live on rank i for
 * one and on rank P−1−i for the other, and the two copies' gradients must be summed before the
 * optimizer step, or a runtime trains two diverging models. Generally: a block whose weight
 * gradients (B or BW) are made on several groups has a copy on each, and those groups all-reduce
 * the copies' gradients before their UPD. One ALL_REDUCE per set of groups sharing blocks, of the
 * gradient bytes a device holds for them (after expert and tensor sharding and ZeRO-2/3, as the
 * memory model counts them), over the devices of all those groups: one node per group, on its
 * compute stream after its last backward, which `dag.jointCollectives` makes one collective.
 *
 * For groups of one device (DualPipe's usual ranks) that is exactly the 2-member all-reduce; a
 * group of k devices pairs member r with member r of the other group in a runtime (k concurrent
 * 2-member all-reduces), which this models as one all-reduce over the 2k devices: an upper bound
 * on its time (docs/cost-model.md, Known gaps).
 */
import { OP_ALL_REDUCE, OP_B, OP_BW, OP_UPD, tableOf, withEntries } from '@stagecraft/ir';
import { EdgeColumns } from '../dag/edgeColumns.ts';
import { RowAppend } from '../dag/rowAppend.ts';
import { type Pass, rewritten } from '../driver/pass.ts';
import { trainingState } from '../lower/trainingState.ts';

/** The stream the copies' all-reduce runs on: the optimizer step waits for it anyway. */
export const COPIES_STREAM = 'compute';

export const reduceCopiesPass: Pass = {
  name: 'reduce-copies',
  reads: [],
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
    const updOf = new Map<number, number>();
    for (let i = 0; i < t.length; i++) if (t.op[i] === OP_UPD) updOf.set(t.group[i]!, i);
    const rows = new RowAppend(t, 'reduce-copies');
    const edges = new EdgeColumns(dag.edges);
    const joint: (readonly number[])[] = [...(dag.jointCollectives ?? [])];
    const explicit: [number, readonly number[]][] = [];
    for (const { groups, blocks } of sets.values()) {
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
