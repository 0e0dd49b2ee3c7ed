/**
 * A stage table's costs as fits of the design's blocks: a stage's measured time is shared among
 * the blocks it holds as the cost model shares it (by their predicted times), which keeps a
 * transformer stage's attention : MLP proportions while matching the stage's total.
 */
import type { Dag, Plan } from '@stagecraft/ir';
import type { BlockFit, CostFits } from './fitCosts.ts';
import { median } from './linearFit.ts';
import type { PredictedCosts } from './predictedCosts.ts';
import type { MeasuredCosts } from './readers/stageTable.ts';

const OPS = ['F', 'BI', 'BW', 'B', 'UPD'] as const;

export function fitTable(
  plan: Plan,
  dag: Dag,
  costs: MeasuredCosts,
  predicted: readonly (PredictedCosts | undefined)[],
): { fits: CostFits; unknownStages: number[] } {
  const blocksOf = new Map<number, number[]>();
  dag.blocks.forEach((b, i) => {
    const s = b.tags.PP;
    if (s === undefined) return;
    const list = blocksOf.get(s) ?? [];
    list.push(i);
    blocksOf.set(s, list);
  });
  const blocks: BlockFit[] = dag.blocks.map((b, block) => ({ block, name: b.name }));
  const unknownStages: number[] = [];
  for (const row of costs.stages) {
    const members = blocksOf.get(row.stage);
    if (!members) {
      unknownStages.push(row.stage);
      continue;
    }
    for (const op of OPS) {
      const measured = row[op];
      if (measured === undefined) continue;
      const weights = members.map((b) => predictedOf(predicted[b], op));
      const total = weights.reduce((a, w) => a + w, 0);
      members.forEach((b, i) => {
        const share = total > 0 ? weights[i]! / total : 1 / members.length;
        blocks[b]![op] = { ms: measured * share, samples: 1 };
      });
    }
  }
  const fits: { -readonly [K in keyof CostFits]: CostFits[K] } = { blocks, steps: [] };
  const ratios = costs.stages
    .flatMap((r) => (r.FandB !== undefined ? [pairRatio(r)] : []))
    .filter(Number.isFinite);
  if (ratios.length > 0) fits.overlapFactor = { ms: median(ratios), samples: ratios.length };
  if (costs.p2p) {
    const sizes: number[] = [];
    for (const d of plan.devices)
      for (const s of d.streams)
        for (const ins of s.instructions) if (ins.op === 'SEND') sizes.push(ins.bytes);
    fits.p2p = {
      latencyUs: costs.p2p.latencyUs,
      bandwidthGBps: costs.p2p.bandwidthGBps,
      samples: 0,
      separable: true,
      medianBytes: sizes.length > 0 ? median(sizes) : 0,
    };
  }
  return { fits, unknownStages };
}

function predictedOf(p: PredictedCosts | undefined, op: (typeof OPS)[number]): number {
  if (!p) return 0;
  if (op === 'B') return p.B ?? (p.BI ?? 0) + (p.BW ?? 0);
  // A schedule with a fused backward predicts B only: share it as the model splits it.
  const share = p.inputGradShare ?? 0.5;
  if (op === 'BI') return p.BI ?? (p.B ?? 0) * share;
  if (op === 'BW') return p.BW ?? (p.B ?? 0) * (1 - share);
  return p[op] ?? 0;
}

/** The F&B pair over its separate time, from a row that gives both. */
function pairRatio(r: MeasuredCosts['stages'][number]): number {
  const backward = r.B ?? (r.BI !== undefined && r.BW !== undefined ? r.BI + r.BW : undefined);
  if (r.F === undefined || backward === undefined || r.FandB === undefined) return Number.NaN;
  return r.FandB / (r.F + backward);
}
