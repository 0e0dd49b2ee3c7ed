/** Tensor-parallel designs the passes' and the simulator's tests share. */
import type { Design } from '@stagecraft/ir';

/** One Llama-3-8B layer, TP8 on a DGX H100 (or `preset`), with `recompute` when asked. */
export function tp8Layer(
  sequenceParallel: boolean | undefined,
  recompute = false,
  preset = 'dgx-h100',
): Design {
  const devices = [0, 1, 2, 3, 4, 5, 6, 7];
  return {
    format: 'stagecraft/design@2',
    name: 'llama tp8',
    model: { kind: 'transformer', preset: 'llama3-8b', layers: 1, seqLen: 4096, annotate: { PP: 1 } },
    cluster: { preset, nodes: 1 },
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

/** Llama-3-8B (8 layers) as a 1F1B pipeline of two DGX H100 (or `preset`) nodes, each stage TP8 with `options`. */
export function tp8Pipeline(
  options: {
    sequence_parallel?: boolean;
    scatter_gather_sends?: boolean;
  },
  preset = 'dgx-h100',
): Design {
  const groups = [0, 1].map((s) => Array.from({ length: 8 }, (_, k) => s * 8 + k));
  return {
    format: 'stagecraft/design@2',
    name: 'llama tp8 pp2',
    model: { kind: 'transformer', preset: 'llama3-8b', layers: 8, annotate: { PP: 2 } },
    cluster: { preset, nodes: 2 },
    directives: [
      { op: 'schedule', builder: '1f1b', ranks: 2, microbatches: 4, groups, stream: 'pp' },
      ...groups.map((devices) => ({
        op: 'shard_tensor' as const,
        filter: { TP: '*' as const },
        devices,
        stream: 'tp',
        ...options,
      })),
    ],
  };
}
