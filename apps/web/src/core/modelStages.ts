/**
 * How many pipeline (PP) stages a model has, counted as the compiler counts them (expandSchedule:
 * the distinct PP tags of its blocks), so a form can refuse a stage count the compile would refuse
 * before it is applied.
 */
import type { Design } from '@stagecraft/ir';
import { getBuilder, layersPerStage } from '@stagecraft/passes';

/** The model's PP stages, or undefined when it does not lower (its own error says why). */
export function modelPipelineStages(model: Design['model']): number | undefined {
  if (model.kind === 'synthetic') {
    if ('stages' in model) return model.stages;
    return new Set(model.blocks.map((b) => b.tags.PP).filter((pp) => pp !== undefined)).size;
  }
  try {
    return layersPerStage(model)?.length;
  } catch {
    return undefined;
  }
}

/**
 * Why `stages` ranks cannot run this design's model under its schedule, or null: the model's PP
 * stages must divide into ranks × chunks (virtual stages), as expandSchedule requires.
 */
export function stageCountProblem(
  design: Design,
  stages: number,
  modelStages: number | undefined,
): string | null {
  const schedule = design.directives.find((d) => d.op === 'schedule');
  if (schedule?.op !== 'schedule' || modelStages === undefined || modelStages === 0) return null;
  const chunks = schedule.chunks ?? getBuilder(schedule.builder).defaultChunks;
  const virtual = stages * chunks;
  if (modelStages % virtual === 0) return null;
  const per =
    chunks === 1 ? `${stages} stages` : `${stages} stages × ${chunks} chunks = ${virtual} virtual stages`;
  return `stages: the model has ${modelStages} PP stages, which do not divide into ${per} (${schedule.builder})`;
}
