/** Synthetic pipelines with uneven stages and p2p time, as the order search's tests and bench use them. */
import type { Design } from '@stagecraft/ir';

export const MIB = 2 ** 20;
export const ACTIVATION_BYTES = 256 * MIB;
export const PARAM_BYTES = 1024 * MIB;

export interface UnevenStages {
  ranks: number;
  microbatches: number;
  /** ms per stage; repeated cyclically when shorter than the ranks. */
  F: number[];
  BI: number[];
  BW: number[];
  p2pLatencyMs: number;
  builder?: '1f1b' | 'zbv';
}

/** One block per virtual stage, on an ideal cluster with a fixed p2p latency. */
export function unevenPipeline(u: UnevenStages): Design {
  const chunks = u.builder === 'zbv' ? 2 : 1;
  const stages = u.ranks * chunks;
  const at = (xs: number[], s: number) => xs[s % xs.length]!;
  return {
    format: 'stagecraft/design@3',
    name: `uneven p=${u.ranks} m=${u.microbatches}`,
    model: {
      kind: 'synthetic',
      blocks: Array.from({ length: stages }, (_, s) => ({
        tags: { PP: s },
        F: at(u.F, s),
        BI: at(u.BI, s),
        BW: at(u.BW, s),
        activationBytes: ACTIVATION_BYTES,
        paramBytes: PARAM_BYTES,
        outputBytes: 16 * MIB,
      })),
    },
    cluster: { kind: 'ideal', devices: u.ranks, p2pLatencyMs: u.p2pLatencyMs },
    directives: [{ op: 'schedule', builder: u.builder ?? '1f1b', microbatches: u.microbatches }],
  };
}
