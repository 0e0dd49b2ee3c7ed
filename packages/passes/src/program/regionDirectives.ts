/**
 * The resolution step `shard`, `shard_tensor` and `shard_sequence` share: each directive's regions (regionsOf), their
 * group's members, the region's F/B/BI ops (the only ones whose data edges can cross its
 * boundary), and the provenance and stream of the collectives it adds. Yielded one directive at a
 * time, so a directive's errors still come before the next one is resolved.
 */
import {
  type Dag,
  type DirectiveOf,
  deviceCount,
  type PathSegment,
  type Provenance,
  tableOf,
} from '@stagecraft/ir';
import type { PassContext } from '../driver/pass.ts';
import { NodeIndex } from './nodeIndex.ts';
import { DEFAULT_COMM_STREAM } from './program.ts';
import { familyOf, type Region, regionsOf } from './region.ts';

export interface RegionDirective<K extends 'shard' | 'shard_tensor' | 'shard_sequence'> {
  readonly d: DirectiveOf<K>;
  readonly path: PathSegment[];
  readonly region: Region;
  /** Devices of the region's group (its sub-groups, over mesh axes: `region.mask`, `region.degree`). */
  readonly members: readonly number[];
  /** The region's forward and backward ops. */
  readonly ops: ReadonlySet<number>;
  readonly provenance: Provenance;
  readonly stream: string;
}

export function* regionDirectives<K extends 'shard' | 'shard_tensor' | 'shard_sequence'>(
  dag: Dag,
  ctx: PassContext,
  list: readonly { d: DirectiveOf<K>; index: number; path: PathSegment[] }[],
  pass: string,
): Generator<RegionDirective<K>> {
  const index = new NodeIndex(dag);
  const t = tableOf(dag);
  const devices = deviceCount(ctx.design.cluster);
  for (const { d, index: di, path } of list) {
    for (const region of regionsOf(dag, index, d, path, devices))
      yield {
        d,
        path,
        region,
        members: dag.groups[region.group]!,
        ops: new Set(region.nodes.filter((i) => familyOf(t.op[i]!) !== null)),
        provenance: { pass, directive: di },
        stream: (d as DirectiveOf<'shard' | 'shard_tensor' | 'shard_sequence'>).stream ?? DEFAULT_COMM_STREAM,
      };
  }
}
