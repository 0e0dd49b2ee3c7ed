/** The editable fields of each directive, in the order the inspector shows them. */
import type { DirectiveOp } from '@stagecraft/ir';

export type FieldKind = 'filter' | 'devices' | 'int' | 'number' | 'string' | 'bool' | 'builder' | 'json';

export interface FieldSpec {
  key: string;
  kind: FieldKind;
  optional?: boolean;
  help?: string;
}

const filter: FieldSpec = {
  key: 'filter',
  kind: 'filter',
  help: 'tags the ops must carry (PP, MB, PASS, …)',
};
const devices: FieldSpec = { key: 'devices', kind: 'devices', help: 'device ids, e.g. 0, 1' };
const axis: FieldSpec = {
  key: 'axis',
  kind: 'json',
  optional: true,
  help: 'mesh axes it runs over, e.g. "tp" or ["dp", "tp"]',
};
const stream = (key = 'stream'): FieldSpec => ({ key, kind: 'string', optional: true });

export const FIELDS: Record<DirectiveOp, FieldSpec[]> = {
  schedule: [
    { key: 'builder', kind: 'builder' },
    { key: 'microbatches', kind: 'int' },
    { key: 'ranks', kind: 'int', optional: true },
    { key: 'chunks', kind: 'int', optional: true },
    { key: 'groups', kind: 'json', optional: true, help: 'device group of each rank, e.g. [[0],[1]]' },
    stream(),
  ],
  place: [filter, devices, stream()],
  replicate: [
    filter,
    devices,
    axis,
    stream('reduce_stream'),
    stream('gather_stream'),
    { key: 'bucket_size', kind: 'int', optional: true },
    { key: 'shard_grads', kind: 'bool', optional: true, help: 'ZeRO-2' },
    { key: 'shard_params', kind: 'bool', optional: true, help: 'ZeRO-3' },
  ],
  shard: [filter, devices, axis, stream()],
  shard_tensor: [
    filter,
    devices,
    axis,
    stream(),
    {
      key: 'sequence_parallel',
      kind: 'bool',
      optional: true,
      help: 'reduce-scatter + all-gather instead of all-reduce; norm activations 1/n',
    },
    {
      key: 'scatter_gather_sends',
      kind: 'bool',
      optional: true,
      help: 'pipeline sends 1/n per member, all-gathered by the receiving stage',
    },
    {
      key: 'comm_overlap',
      kind: 'bool',
      optional: true,
      help: 'reduce-scatter and all-gather in chunks beside the GEMMs (needs sequence_parallel)',
    },
  ],
  shard_sequence: [
    filter,
    devices,
    axis,
    stream(),
    {
      key: 'form',
      kind: 'string',
      optional: true,
      help: '"ring" (K/V passed around the ring, overlapped) or "all_gather"',
    },
  ],
  split: [filter, { key: 'dim_name', kind: 'string' }, { key: 'num_microbatches', kind: 'int' }],
  order: [
    { key: 'filters', kind: 'json', help: 'slots in order; a slot lists the filters it runs together' },
  ],
  split_backward: [filter],
  recompute: [
    filter,
    {
      key: 'ops',
      kind: 'json',
      optional: true,
      help: 'only these parts, e.g. ["norm", "mla_up_projection", "swiglu"]; absent: the whole forward',
    },
  ],
  offload: [filter, stream()],
  stream: [
    { key: 'name', kind: 'string' },
    { key: 'priority', kind: 'int', optional: true },
    { key: 'smFraction', kind: 'number', optional: true, help: 'share of SMs, 0..1' },
  ],
};
