/**
 * The ops a `replicate` / `shard` / `shard_tensor` directive covers and the device group they run
 * on. Those directives add collectives over `devices`, so `devices` must be exactly a group `place`
 * put some of the matched ops on, and the region is the matched ops on that group: a device
 * belongs to one group, and a collective among part of a group, or among devices that run none of
 * the ops, has no meaning in a rank-by-rank SPMD program.
 */
import {
  CompileError,
  type Dag,
  type Filter,
  formatPath,
  type NodeTable,
  nodeIdOf,
  OP_B,
  OP_BI,
  OP_F,
  OP_RECV,
  OP_UPD,
  type PathSegment,
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
  const group = dag.groups.findIndex((g) => g.join(',') === key);
  if (group < 0) {
    const other = dag.groups.find((g) => g.some((x) => sorted.includes(x)));
    throw new CompileError({
      path: devPath,
      message: other
        ? `devices [${sorted.join(', ')}] partly overlap the group [${other.join(', ')}]; each device belongs to one group, and ${d.op} runs over the group its ops are placed on`
        : `no op is placed on devices [${sorted.join(', ')}]; place the ops there before ${d.op}`,
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
  return { nodes, group, blocks: [...blocks].sort((a, b) => a - b) };
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
