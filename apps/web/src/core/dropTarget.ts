/**
 * What a palette item is dropped on: a DAG node or a Gantt op. The directive it adds filters on
 * the target's tags, narrowed to what that directive means (a region for split_backward, a
 * microbatch of a pass for an overlap slot).
 */
import type { Filter, FilterValue, GroupMesh } from '@stagecraft/ir';

export interface DropTarget {
  /** Node id in the DAG (or op id in the timeline). */
  id: string;
  /** Tags as filters see them: block tags, split indices (MB, DIR) and PASS. */
  tags: Readonly<Record<string, number | string>>;
  /** Devices of the target's device group, when placed. */
  devices?: readonly number[];
  /** The mesh of that group (its devices listed row-major over it), when placed on one. */
  mesh?: GroupMesh;
}

/** Tags that name a region of the model rather than a microbatch or a pass. */
export function regionFilter(tags: DropTarget['tags'], splitDims: readonly string[] = ['MB', 'DIR']): Filter {
  const out: Record<string, FilterValue> = {};
  for (const [k, v] of Object.entries(tags)) {
    if (k === 'PASS' || splitDims.includes(k)) continue;
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}

/** The target's own tags: one pass of one microbatch of one region. */
export function exactFilter(tags: DropTarget['tags']): Filter {
  const out: Record<string, FilterValue> = {};
  for (const [k, v] of Object.entries(tags)) {
    if (k === 'PASS') {
      if (v === 'F' || v === 'B' || v === 'BI' || v === 'BW') out[k] = v;
    } else if (typeof v === 'number') out[k] = v;
  }
  return out;
}
