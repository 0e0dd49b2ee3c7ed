export { balancedCuts } from './annotate.ts';
export type { Action, BuilderInput, BuiltSchedule, ScheduleBuilder, Slot } from './builders/builder.ts';
export { BUILDERS, getBuilder } from './builders/index.ts';
export { compile, DEFAULT_MAX_OPS, PASSES } from './compile.ts';
export type { CompileOptions, CompileResult, ExpandedDirective, PassSnapshot } from './compileTypes.ts';
export * from './formats/index.ts';
export { compileIncremental, type IncrementalResult, type IncrementalState } from './incremental.ts';
export { layersPerStage, lowerModel } from './lowerModel.ts';
export {
  formatStageLayers,
  type LoweredTransformer,
  lowerTransformer,
  type StageLayers,
} from './lowerTransformer.ts';
export { modelFlopsPerStep } from './modelFlops.ts';
export { NodeIndex } from './nodeIndex.ts';
export type { Pass, PassContext } from './pass.ts';
export { lowerSchedule } from './passes/expandSchedule.ts';
export { formatPipelineLayout, parsePipelineLayout } from './pipelineLayout.ts';
export {
  COST_STRIDE,
  type PlanColumns,
  type ProvenColumns,
  provenColumnsOf,
  type UnitCosts,
} from './planColumns.ts';
export {
  attentionDims,
  type BlockPart,
  CAUSAL_FACTOR,
  type ParameterCounts,
  parameterCounts,
  type TransformerBlock,
  type TransformerUnit,
  tokensPerMicrobatch,
  transformerUnits,
  type UnitKind,
} from './transformerBlocks.ts';
export { type ValidateOptions, validatePlan } from './validatePlan.ts';
export { type DeviceStreams, deviceWaitLookup } from './waitLookup.ts';
