/** Tensor-parallel designs the passes' and the simulator's tests share. */
import type { Design } from '@stagecraft/ir';

/** One Llama-3-8B layer, TP8 on a DGX H100, with `recompute` when asked. */
export function tp8Layer(sequenceParallel: boolean | undefined, recompute = false): Design {
  const devices = [0, 1, 2, 3, 4, 5, 6, 7];
  return {
    format: 'stagecraft/design@2',
    name: 'llama tp8',
    model: { kind: 'transformer', preset: 'llama3-8b', layers: 1, seqLen: 4096, annotate: { PP: 1 } },
    cluster: { preset: 'dgx-h100', nodes: 1 },
    directives: [
      { op: 'split', filter: {}, dim_name: 'MB', num_microbatches: 2 },
      { op: 'place', filter: {}, devices },
      {
        op: 'shard_tensor',
        filter: { TP: '*' },
        devices,
        stream: 'tp',
        ...(sequenceParallel === undefined ? {} : { sequence_parallel: sequenceParallel }),
      },
      ...(recompute ? [{ op: 'recompute' as const, filter: {} }] : []),
    ],
  };
}
