/**
 * What the cost model predicts for each block's F, BI, BW, B and UPD on its device, read from a
 * simulated timeline rather than recomputed, so a calibration starts from exactly the times the
 * simulator used (whatever the model's kind: explicit milliseconds or FLOPs at the GPU's rate).
 */
import type { Dag, DagNode } from '@stagecraft/ir';
import type { TimelineEvent } from '@stagecraft/sim';
import { median } from './linearFit.ts';

export interface PredictedCosts {
  F?: number;
  BI?: number;
  BW?: number;
  B?: number;
  UPD?: number;
  /** FandB / (F + BI + BW) of the model: what an F&B pair takes of its members' separate time. */
  overlapRatio?: number;
  /** BI / (BI + BW) of the model: how a fused backward's measured time is split. */
  inputGradShare?: number;
}

export function predictedCosts(dag: Dag, timeline: readonly TimelineEvent[]): (PredictedCosts | undefined)[] {
  const nodeOf = new Map<string, DagNode>();
  for (const n of dag.nodes) nodeOf.set(n.id, n);
  const samples = dag.blocks.map(() => new Map<string, number[]>());
  for (const e of timeline) {
    if (e.op !== 'F' && e.op !== 'BI' && e.op !== 'BW' && e.op !== 'B') continue;
    const node = nodeOf.get(e.id);
    if (!node || node.block < 0) continue;
    const m = samples[node.block]!;
    const list = m.get(e.op) ?? [];
    list.push(e.endMs - e.startMs);
    m.set(e.op, list);
  }
  return dag.blocks.map((b, i) => {
    const m = samples[i]!;
    const out: PredictedCosts = {};
    for (const [op, xs] of m) out[op as 'F' | 'BI' | 'BW' | 'B'] = median(xs);
    const split = b.ms ?? b.flops;
    if (split && split.BI + split.BW > 0) out.inputGradShare = split.BI / (split.BI + split.BW);
    if (b.ms) {
      out.UPD = b.ms.UPD;
      const sum = b.ms.F + b.ms.BI + b.ms.BW;
      if (sum > 0) out.overlapRatio = b.ms.FandB / sum;
    }
    return m.size > 0 || b.ms ? out : undefined;
  });
}
