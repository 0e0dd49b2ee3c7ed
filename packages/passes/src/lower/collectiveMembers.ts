/**
 * The members a collective node runs among, as the device of a given rank issues it. Most
 * collectives run over their whole group: every member lists the group's array (shared, so readers
 * that cache by array identity check it once). A collective over mesh axes (`dag.subgroups`) runs
 * over the rank's sub-group along them: one shared array per sub-group, with the index and label
 * that make its `collective` key its own (`ALL_REDUCE.tp.F.b3.mb0[dp=1]`). A collective across
 * groups (`dag.jointCollectives`: DualPipe's two copies) pairs the members of the same rank, as
 * SEND/RECV does: on groups of more than one device each rank runs its own, among the devices of
 * its rank in every group (`ALL_REDUCE.copies.d0-d2[dp=1]`), so data replicas are never summed.
 */
import { type Dag, type NodeTable, subgroupLabel, subgroupOf } from '@stagecraft/ir';

export interface Members {
  readonly devices: readonly number[];
  /** Sub-group index (row-major over the axes not reduced over), −1 for the whole group. */
  readonly index: number;
  /** `dp=1`: the coordinates its members share; '' for the whole group. */
  readonly label: string;
}

export class CollectiveMembers {
  /** By group, mask and rank (every compile of a large mesh asks for the same few thousand times). */
  private readonly byRank = new Map<number, Members>();
  /** By group, mask and sub-group: one array per sub-group, shared by its members. */
  private readonly bySub = new Map<number, Members>();
  /** Per node of a collective across groups of more than one device, the groups it spans. */
  private jointGroups: Map<number, readonly number[]> | undefined;
  /** By joint collective (its first node) and rank. */
  private readonly byPair = new Map<string, Members>();

  constructor(
    private readonly dag: Dag,
    private readonly t: NodeTable,
  ) {}

  /** Whether node i runs over sub-groups (its members depend on the rank issuing it). */
  bySubgroup(i: number): boolean {
    return this.dag.subgroups?.has(i) === true || this.pairedGroups(i) !== undefined;
  }

  of(i: number, rank: number): Members {
    const joint = this.pairedGroups(i);
    if (joint !== undefined) return this.pair(i, joint, rank);
    const mask = this.dag.subgroups?.get(i);
    const g = this.t.group[i]!;
    const mesh = this.dag.meshes?.[g];
    if (mask === undefined || !mesh)
      return { devices: collectiveDevices(this.dag, this.t, i), index: -1, label: '' };
    // Masks have at most 8 bits (8 axes) and ranks stay below 2^24: the key is exact.
    const key = (g * 256 + mask) * 2 ** 24 + rank;
    const hit = this.byRank.get(key);
    if (hit) return hit;
    const sub = subgroupOf(mesh, mask, rank);
    const subKey = (g * 256 + mask) * 2 ** 24 + sub.index;
    let m = this.bySub.get(subKey);
    if (!m) {
      const group = this.dag.groups[g]!;
      m = {
        devices: sub.ranks.map((r) => group[r]!),
        index: sub.index,
        label: subgroupLabel(mesh, mask, rank),
      };
      this.bySub.set(subKey, m);
    }
    this.byRank.set(key, m);
    return m;
  }

  /** The groups joint collective node i spans, when they have more than one device each. */
  private pairedGroups(i: number): readonly number[] | undefined {
    if (this.jointGroups === undefined) {
      this.jointGroups = new Map();
      for (const nodes of this.dag.jointCollectives ?? []) {
        const groups = nodes.map((v) => this.t.group[v]!);
        if (groups.every((g) => this.dag.groups[g]!.length === 1)) continue;
        for (const v of nodes) this.jointGroups.set(v, groups);
      }
    }
    return this.jointGroups.get(i);
  }

  /** The devices of `rank` in each of the groups: the members holding the same data. */
  private pair(i: number, groups: readonly number[], rank: number): Members {
    const key = `${groups.join(',')}:${rank}`;
    const hit = this.byPair.get(key);
    if (hit) return hit;
    const devices = groups.map((g) => this.dag.groups[g]![rank]!).sort((a, b) => a - b);
    const mesh = this.dag.meshes?.[this.t.group[i]!];
    const m = { devices, index: rank, label: mesh ? subgroupLabel(mesh, 0, rank) : `rank=${rank}` };
    this.byPair.set(key, m);
    return m;
  }
}

/** The `collective` key of node i's instruction with id `id` among `m`. */
export function collectiveKey(id: string, m: Members): string {
  return m.index < 0 ? id : `${id}[${m.label}]`;
}

/** The devices of collective i: its group's, unless the DAG said otherwise. */
export function collectiveDevices(dag: Dag, t: NodeTable, i: number): readonly number[] {
  return t.devices.get(i) ?? dag.groups[t.group[i]!] ?? [];
}
