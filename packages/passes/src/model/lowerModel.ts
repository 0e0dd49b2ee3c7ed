/** The model as a chain of blocks with tags and per-microbatch costs: what the DAG is built from. */
import { type BlockInfo, type Model, resolveTransformer } from '@stagecraft/ir';
import { lowerTransformer, type StageLayers } from './lowerTransformer.ts';
import { transformerBlockCount } from './transformerBlocks.ts';

export function lowerModel(model: Model): BlockInfo[] {
  if (model.kind === 'transformer') return lowerTransformer(model).blocks;
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

/**
 * How many blocks `lowerModel` makes of the model, counted without lowering it (a size judged
 * before compiling): 0 for a transformer whose configuration does not resolve (its compile
 * refuses it at once).
 */
export function modelBlockCount(model: Model): number {
  if (model.kind === 'synthetic') return 'stages' in model ? model.stages : model.blocks.length;
  const r = resolveTransformer(model);
  return r.ok ? transformerBlockCount(r.config) : 0;
}

/**
 * What each pipeline stage holds (embedding, decoder layers, MTP modules, loss) for a transformer
 * model; undefined for synthetic models, whose blocks are not layers. Throws CompileError for a
 * model that does not lower (an unknown preset, a layout that drops a layer).
 */
export function layersPerStage(model: Model): StageLayers[] | undefined {
  return model.kind === 'transformer' ? lowerTransformer(model).stages : undefined;
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
