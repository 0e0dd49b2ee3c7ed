export type { Action, BuilderInput, BuiltSchedule, ScheduleBuilder, Slot } from './builders/builder.ts';
export { microbatchesPerDirection, scheduleMicrobatches } from './builders/builder.ts';
export { BUILDERS, getBuilder } from './builders/index.ts';
export { compile } from './compile/compile.ts';
export { designSizeIssue, estimatedOps } from './compile/designSize.ts';
export { compileIncremental, type IncrementalResult, type IncrementalState } from './compile/incremental.ts';
export { DEFAULT_MAX_OPS, PASSES } from './compile/pipeline.ts';
export type {
  CompileOptions,
  CompileResult,
  ExpandedDirective,
  NodeDiff,
  PassSnapshot,
} from './driver/compileTypes.ts';
export type { Pass, PassContext, PassInput } from './driver/pass.ts';
export * from './formats/index.ts';
export { balancedCuts } from './model/annotate.ts';
export { layersPerStage, lowerModel, modelBlockCount } from './model/lowerModel.ts';
export {
  formatStageLayers,
  type LoweredTransformer,
  lowerTransformer,
  type StageLayers,
} from './model/lowerTransformer.ts';
export { modelFlopsPerStep } from './model/modelFlops.ts';
export { formatPipelineLayout, parsePipelineLayout } from './model/pipelineLayout.ts';
export {
  attendedKeys,
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
} from './model/transformerBlocks.ts';
export { lowerSchedule } from './passes/expandSchedule.ts';
export { NodeIndex } from './program/nodeIndex.ts';
export { fusedBackwardIn, regionHolds, splitOrderBackward } from './program/runningOrder.ts';
