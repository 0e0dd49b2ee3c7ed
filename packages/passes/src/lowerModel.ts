/** The model as a chain of blocks with tags and per-microbatch costs: what the DAG is built from. */
import { type BlockInfo, CompileError, type Model } from '@stagecraft/ir';

export function lowerModel(model: Model): BlockInfo[] {
  if (model.kind === 'transformer') {
    throw new CompileError({
      path: 'model.kind',
      message: 'transformer models are not supported by this compiler yet; use a synthetic model',
    });
  }
  if ('stages' in model) {
    const { F, BI, BW } = model.costs;
    const ms = { F, BI, BW, FandB: model.costs.FandB ?? F + BI + BW, UPD: model.costs.UPD ?? 0 };
    return Array.from({ length: model.stages }, (_, s) => ({
      name: `stage ${s}`,
      tags: { PP: s },
      ms,
      activationBytes: model.activationBytes ?? 0,
      paramBytes: model.paramBytes ?? 0,
      outputBytes: model.outputBytes ?? 0,
    }));
  }
  return model.blocks.map((b, i) => {
    const block: BlockInfo = {
      name: b.name ?? `block ${i}`,
      tags: b.tags,
      ms: { F: b.F, BI: b.BI, BW: b.BW, FandB: b.FandB ?? b.F + b.BI + b.BW, UPD: b.UPD ?? 0 },
      activationBytes: b.activationBytes ?? 0,
      paramBytes: b.paramBytes ?? 0,
      outputBytes: b.outputBytes ?? 0,
    };
    if (b.flops) block.flops = { ...b.flops };
    if (b.recomputeActivationBytes !== undefined) block.recomputeActivationBytes = b.recomputeActivationBytes;
    if (b.experts !== undefined) block.experts = b.experts;
    if (b.topK !== undefined) block.topK = b.topK;
    return block;
  });
}

/** Values of the PP tag in forward order of first appearance. */
export function stageValues(blocks: readonly BlockInfo[]): number[] {
  const seen: number[] = [];
  for (const b of blocks) {
    const v = b.tags.PP;
    if (v !== undefined && !seen.includes(v)) seen.push(v);
  }
  return seen;
}
