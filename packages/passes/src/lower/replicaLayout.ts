/**
 * How device groups appear in the plan. A group is one SPMD program: every member runs the same
 * instructions on its own data, and member r of one group exchanges with member r of another.
 * Small designs list every device. When the per-device plan would exceed COMPACT_ABOVE
 * instructions (50k) and the members of every group are symmetric (member r of a group reaches member
 * r of each peer group over the same kind of link for every r), each group is lowered once, on
 * its first device, with `replicas` naming the others (and, over mesh axes, every sub-group of a
 * collective must sit on the nodes as the representative's does): DeepSeek-V3 on 2,048 GPUs is then 16
 * programs, not 2,048 copies of them, and simulating the representatives is exact.
 */
import {
  type Cluster,
  type Dag,
  expandCluster,
  type NodeTable,
  OP_SEND,
  subgroupsOf,
  tableOf,
} from '@stagecraft/ir';

export const COMPACT_ABOVE = 50_000;

/** GPUs per node of a cluster; undefined for the ideal cluster (one flat network). */
export function gpusPerNodeOf(cluster: Cluster): number | undefined {
  const r = expandCluster(cluster);
  return r.ok && r.cluster.kind === 'custom' ? r.cluster.gpusPerNode : undefined;
}

export function compactGroups(dag: Dag, cluster: Cluster, instructionsPerGroup: readonly number[]): boolean {
  let expanded = 0;
  instructionsPerGroup.forEach((k, g) => {
    expanded += k * dag.groups[g]!.length;
  });
  if (expanded <= COMPACT_ABOVE) return false;
  if (!dag.groups.some((g) => g.length > 1)) return false;
  const perNode = gpusPerNodeOf(cluster);
  if (perNode === undefined) return true;
  const seen = new Set<string>();
  const t = tableOf(dag);
  for (let i = 0; i < t.length; i++) {
    if (t.op[i] !== OP_SEND) continue;
    const key = `${t.group[i]}>${t.peer[i]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!ranksAlike(dag.groups[t.group[i]!]!, dag.groups[t.peer[i]!]!, perNode)) return false;
  }
  // A collective across groups (DualPipe's copies) pairs member r of each: timed on rank 0's pair.
  for (const nodes of dag.jointCollectives ?? []) {
    const first = dag.groups[t.group[nodes[0]!]!]!;
    for (const v of nodes.slice(1)) if (!ranksAlike(first, dag.groups[t.group[v]!]!, perNode)) return false;
  }
  return subgroupsSymmetric(dag, t, perNode);
}

/** Whether member r of `a` reaches member r of `b` over the same kind of link for every r. */
function ranksAlike(a: readonly number[], b: readonly number[], perNode: number): boolean {
  const same = (r: number) => Math.floor(a[r]! / perNode) === Math.floor(b[r]! / perNode);
  const first = same(0);
  for (let r = 1; r < a.length; r++) if (same(r) !== first) return false;
  return true;
}

/**
 * Collectives over mesh axes are timed on the representative's sub-group: every other sub-group
 * along the same axes must sit on the nodes alike (as many nodes, as many members on each).
 */
function subgroupsSymmetric(dag: Dag, t: NodeTable, perNode: number): boolean {
  if (!dag.subgroups || !dag.meshes) return true;
  const seen = new Set<number>();
  for (const [i, mask] of dag.subgroups) {
    const g = t.group[i]!;
    const key = g * 256 + mask;
    if (seen.has(key)) continue;
    seen.add(key);
    const mesh = dag.meshes[g];
    if (!mesh) continue;
    const group = dag.groups[g]!;
    let first: string | undefined;
    for (const ranks of subgroupsOf(mesh, mask)) {
      const count = new Map<number, number>();
      for (const r of ranks) {
        const node = Math.floor(group[r]! / perNode);
        count.set(node, (count.get(node) ?? 0) + 1);
      }
      const shape = [...count.values()].sort((x, y) => x - y).join(',');
      if (first === undefined) first = shape;
      else if (shape !== first) return false;
    }
  }
  return true;
}
