/**
 * The members a collective node runs among, as the device of a given rank issues it. Most
 * collectives run over their whole group: every member lists the group's array (shared, so readers
 * that cache by array identity check it once). A collective over mesh axes (`dag.subgroups`) runs
 * over the rank's sub-group along them: one shared array per sub-group, with the index and label
 * that make its `collective` key its own (`ALL_REDUCE.tp.F.b3.mb0[dp=1]`).
 */
import type { Dag } from '../dag.ts';
import { subgroupLabel, subgroupOf } from '../mesh.ts';
import type { NodeTable } from '../nodeTable.ts';
import { collectiveDevices } from './planInstructions.ts';

export interface Members {
  readonly devices: readonly number[];
  /** Sub-group index (row-major over the axes not reduced over), −1 for the whole group. */
  readonly index: number;
  /** `dp=1`: the coordinates its members share; '' for the whole group. */
  readonly label: string;
}

export class CollectiveMembers {
  private readonly cache = new Map<string, Members>();

  constructor(
    private readonly dag: Dag,
    private readonly t: NodeTable,
  ) {}

  /** Whether node i runs over sub-groups (its members depend on the rank issuing it). */
  bySubgroup(i: number): boolean {
    return this.dag.subgroups?.has(i) === true;
  }

  of(i: number, rank: number): Members {
    const mask = this.dag.subgroups?.get(i);
    const g = this.t.group[i]!;
    const mesh = this.dag.meshes?.[g];
    if (mask === undefined || !mesh)
      return { devices: collectiveDevices(this.dag, this.t, i), index: -1, label: '' };
    const sub = subgroupOf(mesh, mask, rank);
    const key = `${g}:${mask}:${sub.index}`;
    let m = this.cache.get(key);
    if (!m) {
      const group = this.dag.groups[g]!;
      m = {
        devices: sub.ranks.map((r) => group[r]!),
        index: sub.index,
        label: subgroupLabel(mesh, mask, rank),
      };
      this.cache.set(key, m);
    }
    return m;
  }
}

/** The `collective` key of node i's instruction with id `id` among `m`. */
export function collectiveKey(id: string, m: Members): string {
  return m.index < 0 ? id : `${id}[${m.label}]`;
}
