/**
 * The ops a `replicate` / `shard` / `shard_tensor` directive covers and the device group they run
 * on. Given `devices`, those must be exactly a group `place` put some of the matched ops on, and
 * the region is the matched ops on that group: a device belongs to one group, and a collective
 * among an arbitrary part of a group, or among devices that run none of the ops, has no meaning in
 * a rank-by-rank SPMD program. The one meaningful part of a group is a sub-group along mesh axes
 * (design format @3): given `axis`, a region is the matched ops of each mesh group, and its
 * collectives run over the sub-groups along those axes, which every member issues alike.
 */
import {
  axisMask,
  CompileError,
  type Dag,
  type Filter,
  formatPath,
  meshName,
  type NodeTable,
  nodeIdOf,
  OP_B,
  OP_BI,
  OP_F,
  OP_RECV,
  OP_UPD,
  type PathSegment,
  subgroupSize,
  tableOf,
} from '@stagecraft/ir';
import type { NodeIndex } from './nodeIndex.ts';

export interface Region {
  /** Matched compute nodes. */
  readonly nodes: readonly number[];
  /** Device group index into dag.groups. */
  readonly group: number;
  /** Blocks the matched nodes belong to, ascending. */
  readonly blocks: readonly number[];
  /**
   * The mesh axes the directive runs over (bit mask, mesh.ts), or null for the whole group: its
   * collectives then run over each sub-group along those axes.
   */
  readonly mask: number | null;
  /** Members of one sub-group (the group's size for the whole group). */
  readonly degree: number;
}

type RegionDirective = { op: string; filter: Filter; devices?: readonly number[]; axis?: string | string[] };

/**
 * The regions of a directive: with `devices`, the one on that group (over `axis` too if given);
 * with `axis` alone, one per group the matched ops are placed on, each a mesh with those axes.
 */
export function regionsOf(
  dag: Dag,
  index: NodeIndex,
  d: RegionDirective,
  path: readonly PathSegment[],
  clusterDevices: number,
): Region[] {
  const names = typeof d.axis === 'string' ? [d.axis] : (d.axis ?? []);
  if (d.devices !== undefined) {
    const r = regionOf(dag, index, { ...d, devices: d.devices }, path, clusterDevices);
    if (d.axis === undefined) return [r];
    // A group and axes of its mesh: that group's sub-groups only.
    const mesh = dag.meshes?.[r.group];
    if (!mesh)
      throw new CompileError({
        path: formatPath([...path, 'axis']),
        message: `devices [${dag.groups[r.group]!.join(', ')}] are not a mesh; place them with "mesh" and axes ${names.map((n) => `"${n}"`).join(', ')}`,
      });
    const { mask, unknown } = axisMask(mesh, names);
    if (unknown.length > 0)
      throw new CompileError({
        path: formatPath([...path, 'axis']),
        message: `mesh ${meshName(mesh)} on devices [${dag.groups[r.group]!.join(', ')}] has no axis ${unknown.map((n) => `"${n}"`).join(', ')}`,
      });
    const whole = mask === (1 << mesh.axes.length) - 1;
    return [{ ...r, mask: whole ? null : mask, degree: subgroupSize(mesh, mask) }];
  }
  const matched = index.match(d.filter, [...path, 'filter']);
  if (matched.length === 0)
    throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
  const t = tableOf(dag);
  const byGroup = new Map<number, number[]>();
  for (const i of matched) {
    const g = t.group[i]!;
    let l = byGroup.get(g);
    if (!l) byGroup.set(g, (l = []));
    l.push(i);
  }
  const regions: Region[] = [];
  for (const [group, nodes] of [...byGroup].sort((a, b) => a[0] - b[0])) {
    const mesh = dag.meshes?.[group];
    const where = `${nodeIdOf(dag, nodes[0]!)} on devices [${dag.groups[group]?.join(', ') ?? ''}]`;
    if (!mesh)
      throw new CompileError({
        path: formatPath([...path, 'axis']),
        message: `the filter matches ${where}, which are not a mesh; place them with "mesh" and axes ${names.map((n) => `"${n}"`).join(', ')}, or give "devices"`,
      });
    const { mask, unknown } = axisMask(mesh, names);
    if (unknown.length > 0)
      throw new CompileError({
        path: formatPath([...path, 'axis']),
        message: `the filter matches ${where}, mesh ${meshName(mesh)}, which has no axis ${unknown.map((n) => `"${n}"`).join(', ')}`,
      });
    const whole = mask === (1 << mesh.axes.length) - 1;
    const blocks = new Set<number>();
    for (const i of nodes) blocks.add(t.block[i]!);
    regions.push({
      nodes,
      group,
      blocks: [...blocks].sort((a, b) => a - b),
      mask: whole ? null : mask,
      degree: subgroupSize(mesh, mask),
    });
  }
  return regions;
}

export function regionOf(
  dag: Dag,
  index: NodeIndex,
  d: { op: string; filter: Filter; devices: readonly number[] },
  path: readonly PathSegment[],
  clusterDevices: number,
): Region {
  const devPath = formatPath([...path, 'devices']);
  d.devices.forEach((dev, j) => {
    if (dev >= clusterDevices)
      throw new CompileError({
        path: formatPath([...path, 'devices', j]),
        message: `device ${dev} is outside the cluster (devices 0..${clusterDevices - 1})`,
      });
    if (d.devices.indexOf(dev) !== j)
      throw new CompileError({
        path: formatPath([...path, 'devices', j]),
        message: `device ${dev} is listed twice`,
      });
  });
  const sorted = [...d.devices].sort((a, b) => a - b);
  const key = sorted.join(',');
  // A mesh group lists its members in mesh order: compare sets.
  const group = dag.groups.findIndex((g, gi) =>
    dag.meshes?.[gi] ? [...g].sort((a, b) => a - b).join(',') === key : g.join(',') === key,
  );
  if (group < 0) {
    const other = dag.groups.find((g) => g.some((x) => sorted.includes(x)));
    throw new CompileError({
      path: devPath,
      message: !other
        ? `no op is placed on devices [${sorted.join(', ')}]; place the ops there before ${d.op}`
        : sorted.every((x) => other.includes(x))
          ? `devices [${sorted.join(', ')}] are part of the group [${other.join(', ')}]; ${d.op} runs over a whole group, or over the sub-groups of a mesh: place the group with "mesh" and name its axes ("axis"), or give one ${d.op} per sub-group`
          : `devices [${sorted.join(', ')}] partly overlap the group [${other.join(', ')}]; each device belongs to one group, and ${d.op} runs over the group its ops are placed on`,
    });
  }
  const matched = index.match(d.filter, [...path, 'filter']);
  if (matched.length === 0)
    throw new CompileError({ path: formatPath([...path, 'filter']), message: 'matches no op' });
  // Ops the filter matches on other groups are other copies of the region (DualPipe holds two).
  const t = tableOf(dag);
  const nodes = matched.filter((i) => t.group[i] === group);
  if (nodes.length === 0) {
    const n = matched[0]!;
    throw new CompileError({
      path: formatPath([...path, 'filter']),
      message: `matches ${nodeIdOf(dag, n)} on devices [${dag.groups[t.group[n]!]?.join(', ') ?? ''}] but no op on [${sorted.join(', ')}], where this ${d.op} runs; place the region there first`,
    });
  }
  const blocks = new Set<number>();
  for (const i of nodes) blocks.add(t.block[i]!);
  return {
    nodes,
    group,
    blocks: [...blocks].sort((a, b) => a - b),
    mask: null,
    degree: dag.groups[group]!.length,
  };
}

/** Ids' suffix naming node i's split indices, e.g. `.mb3`. */
export function dimsSuffix(dag: Dag, t: NodeTable, i: number): string {
  let s = '';
  for (let d = 0; d < t.dims.length; d++) {
    const v = t.dims[d]![i]!;
    if (v >= 0) s += `.${dag.dims[d]!.name.toLowerCase()}${v}`;
  }
  return s;
}

/** Pass family of an op code for boundary edges: forward data flows F→F, gradients B/BI→B/BI. */
export function familyOf(code: number): 'F' | 'B' | null {
  if (code === OP_F) return 'F';
  if (code === OP_B || code === OP_BI) return 'B';
  return null;
}

/** Pass family of node i on a boundary edge: a compute op's, or the pass a SEND/RECV carries. */
export function nodeFamily(t: NodeTable, i: number): 'F' | 'B' | null {
  const code = t.op[i]!;
  return code <= OP_UPD ? familyOf(code) : code <= OP_RECV ? familyOf(t.pass[i]!) : null;
}
