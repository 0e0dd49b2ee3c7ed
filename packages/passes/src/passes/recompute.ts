/**
 * `recompute` (activation checkpointing): the matched forwards keep only their input
 * (`recomputeActivationBytes`, by default the previous block's output) instead of their full
 * stash; a RECOMPUTE op re-runs the forward just before the backward needs it, re-allocating the
 * stash, which the backward frees as before. RECOMPUTE waits for everything else the backward
 * waits for, so it runs late (when the gradient arrives) rather than right after the forward; the
 * order pass issues it right before its backward. A forward whose output tensor parallelism
 * all-reduces repeats that all-reduce when re-run (Megatron re-runs the whole layer, collectives
 * included), and the backward waits for it. With `ops` only the named parts of each block are
 * dropped and re-made (recomputeSelection.ts): the forward keeps the rest of its stash and the
 * RECOMPUTE runs only their GEMMs and kernels, without the collectives.
 */
import {
  type Dag,
  EDGE_DATA,
  type NodeTable,
  nodeIdOf,
  OP_ALL_GATHER,
  OP_ALL_REDUCE,
  OP_B,
  OP_BI,
  OP_BW,
  OP_RECOMPUTE,
  OP_REDUCE_SCATTER,
  type RecomputePart,
} from '@stagecraft/ir';
import { type Pass, rewritten } from '../driver/pass.ts';
import { stashedForwards } from '../program/stashedForwards.ts';
import { DagRewrite } from './dagRewrite.ts';
import {
  type BlockSelection,
  BlockSelections,
  blockSelection,
  refuseUnmatchedParts,
} from './recomputeSelection.ts';

export const recomputePass: Pass = {
  name: 'recompute',
  reads: ['recompute'],
  writes: [],
  run(dag, ctx) {
    const rewrite = DagRewrite.of(dag, ctx, 'recompute', 'recompute');
    if (rewrite === undefined) return dag;
    const { t, rows, edges, out, inc, directives: list } = rewrite;
    const e = dag.edges;
    // The edits to existing rows, applied once the table exists: memory effects and provenance.
    const alloc = new Map<number, number>();
    const free = new Map<number, number>();
    const directive = new Map<number, number>();
    const allocOf = (i: number) => alloc.get(i) ?? t.alloc[i]!;
    const freeOf = (i: number) => free.get(i) ?? t.free[i]!;
    const subgroups = new Map(dag.subgroups ?? []);
    const pathOf = new Map(list.map((x) => [x.index, x.path]));
    const claims = new BlockSelections();
    const selected = new Map<number, BlockSelection>();
    const seen = new Map<number, Set<RecomputePart>>();
    for (const { f, d, provenance } of stashedForwards(
      dag,
      list,
      'recompute',
      'recompute re-runs forwards',
    )) {
      const bi = t.block[f]!;
      const block = dag.blocks[bi]!;
      claims.claim(bi, block.name, d.ops, pathOf.get(provenance.directive ?? -1) ?? ['directives']);
      const selection = d.ops === undefined ? undefined : blockSelection(block, d.ops);
      if (d.ops !== undefined) {
        const parts = seen.get(provenance.directive ?? -1) ?? new Set<RecomputePart>();
        seen.set(provenance.directive ?? -1, parts);
        for (const op of selection?.info.ops ?? []) parts.add(op);
        if (selection === undefined) continue;
        selected.set(bi, selection);
      }
      const keep =
        selection !== undefined
          ? block.activationBytes - selection.bytes
          : (block.recomputeActivationBytes ?? dag.blocks[bi - 1]?.outputBytes ?? 0);
      const stash = stashEdge(t, e, out, f);
      if (stash < 0) continue;
      const b = e.to[stash]!;
      // What the RECOMPUTE makes again: the whole stash, or the selected parts of it.
      const stashed = selection?.bytes ?? block.activationBytes;
      // A ZeRO-3 gather before the backward must come before the recompute, which needs the weights too.
      const gather = gatherInto(t, dag.edges.from, inc, b);
      const gathered = gather >= 0 ? Math.max(0, allocOf(b)) : 0;
      const r = rows.add({
        op: OP_RECOMPUTE,
        like: f,
        group: t.group[f]!,
        stream: t.names[t.stream[f]!]!,
        directive: provenance.directive ?? -1,
        alloc: stashed + gathered,
        // Named after its forward (the rule does so; a forward with an id of its own, likewise).
        ...(t.ids.has(f) ? { id: `RECOMPUTE${t.ids.get(f)!.slice(1)}` } : {}),
      });
      alloc.set(f, Math.max(0, allocOf(f) - stashed) + (selection === undefined ? keep : 0));
      directive.set(f, provenance.directive ?? -1);
      if (gathered > 0) alloc.set(b, 0);
      if (gather >= 0) edges.push(gather, r);
      // Whichever backward frees the stash now frees the kept input too (a selection keeps part
      // of the stash the backward frees already).
      if (selection === undefined) {
        const freer = freeingOp(t, b, freeOf(b), out, e.to);
        free.set(freer, freeOf(freer) + keep);
      }
      edges.from[stash] = r; // RECOMPUTE → backward
      edges.push(f, r, e.bytes[stash]!);
      for (let k = inc.offset[b]!; k < inc.offset[b + 1]!; k++) {
        const j = inc.edge[k]!;
        if (j !== stash && e.kind[j] === EDGE_DATA) edges.push(e.from[j]!, r);
      }
      // A selection re-makes tensors inside the block only: no collective again.
      if (selection === undefined)
        repeatTensorParallel(dag, rewrite, subgroups, f, r, b, provenance.directive ?? -1);
    }
    // Of the forwards each selective directive claimed, some block must have each named part.
    for (const { d, index, path } of list) {
      const parts = seen.get(index);
      if (d.ops !== undefined && parts !== undefined) refuseUnmatchedParts(d.ops, parts, path);
    }
    const table = rows.table(['alloc', 'free', 'provPass', 'provDirective']);
    const pass = table.names.indexOf('recompute');
    for (const [i, a] of alloc) table.alloc[i] = a;
    for (const [i, x] of free) table.free[i] = x;
    for (const [i, d] of directive) {
      table.provPass[i] = pass;
      table.provDirective[i] = d;
    }
    const blocks = dag.blocks.slice();
    for (const [b, s] of selected) blocks[b] = { ...blocks[b]!, recomputeSelection: s.info };
    return rewritten(
      dag,
      ctx,
      {
        edges: edges.list(),
        ...(subgroups.size > 0 ? { subgroups } : {}),
        ...(selected.size > 0 ? { blocks } : {}),
      },
      table,
    );
  },
};

/** The stash edge: F → its own backward (B or BI) of the same block and microbatch, or −1. */
function stashEdge(
  t: NodeTable,
  e: Dag['edges'],
  out: { offset: Int32Array; edge: Int32Array },
  f: number,
): number {
  for (let k = out.offset[f]!; k < out.offset[f + 1]!; k++) {
    const j = out.edge[k]!;
    const to = e.to[j]!;
    if (e.kind[j] === EDGE_DATA && (t.op[to] === OP_B || t.op[to] === OP_BI) && t.block[to] === t.block[f])
      return j;
  }
  return -1;
}

/**
 * The forward's TP collectives (an all-reduce, or sequence parallelism's reduce-scatter and
 * all-gather) again, after the recompute r and before the backward b, as Megatron re-runs them.
 */
function repeatTensorParallel(
  dag: Dag,
  rewrite: DagRewrite<'recompute'>,
  subgroups: Map<number, number>,
  f: number,
  r: number,
  b: number,
  directive: number,
): void {
  const { t, rows, edges, out } = rewrite;
  let last = r;
  let lastBytes = 0;
  for (const c of tensorParallelCollectives(t, f, out, dag.edges.to)) {
    const again = rows.add({
      op: t.op[c]!,
      like: f,
      group: t.group[c]!,
      stream: t.names[t.stream[c]!]!,
      directive,
      bytes: t.bytes[c]!,
      id: `${nodeIdOf(dag, c).split('.', 2).join('.')}.RECOMPUTE${nodeIdOf(dag, f).slice(1)}`,
    });
    const mask = dag.subgroups?.get(c);
    if (mask !== undefined) subgroups.set(again, mask);
    edges.push(last, again, t.bytes[c]!);
    last = again;
    lastBytes = t.bytes[c]!;
  }
  if (last !== r) edges.push(last, b, lastBytes);
}

/**
 * The collectives tensor parallelism puts on forward f's output (shardTensor.ts), in order: its
 * all-reduce, or its reduce-scatter and the all-gather after it; none when f's block is not split.
 */
function tensorParallelCollectives(
  t: NodeTable,
  f: number,
  out: { offset: Int32Array; edge: Int32Array },
  to: Int32Array,
): number[] {
  for (let k = out.offset[f]!; k < out.offset[f + 1]!; k++) {
    const a = to[out.edge[k]!]!;
    if (t.block[a] !== t.block[f]) continue;
    if (t.op[a] === OP_ALL_REDUCE) return [a];
    if (t.op[a] !== OP_REDUCE_SCATTER) continue;
    for (let q = out.offset[a]!; q < out.offset[a + 1]!; q++) {
      const g = to[out.edge[q]!]!;
      if (t.op[g] === OP_ALL_GATHER) return [a, g];
    }
  }
  return [];
}

/** The ALL_GATHER feeding node b (ZeRO-3), or −1. */
function gatherInto(
  t: NodeTable,
  from: Int32Array,
  inc: { offset: Int32Array; edge: Int32Array },
  b: number,
): number {
  for (let k = inc.offset[b]!; k < inc.offset[b + 1]!; k++) {
    const u = from[inc.edge[k]!]!;
    if (t.op[u] === OP_ALL_GATHER) return u;
  }
  return -1;
}

/** The backward that frees the stash: B itself, or the BW a split BI feeds (`bFree`: b's free bytes now). */
function freeingOp(
  t: NodeTable,
  bi: number,
  bFree: number,
  out: { offset: Int32Array; edge: Int32Array },
  to: Int32Array,
): number {
  if (t.op[bi] === OP_B || bFree > 0) return bi;
  for (let k = out.offset[bi]!; k < out.offset[bi + 1]!; k++) {
    const x = to[out.edge[k]!]!;
    if (t.op[x] === OP_BW && t.block[x] === t.block[bi]) return x;
  }
  return bi;
}
