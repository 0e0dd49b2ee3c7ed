export type { Action, BuilderInput, BuiltSchedule, ScheduleBuilder, Slot } from './builders/builder.ts';
export { BUILDERS, getBuilder } from './builders/index.ts';
export { compile, DEFAULT_MAX_OPS, PASSES } from './compile.ts';
export type { CompileOptions, CompileResult, ExpandedDirective, PassSnapshot } from './compileTypes.ts';
export { compileIncremental, type IncrementalResult, type IncrementalState } from './incremental.ts';
export { NodeIndex } from './nodeIndex.ts';
export type { Pass, PassContext } from './pass.ts';
export { lowerSchedule } from './passes/expandSchedule.ts';
export { validatePlan } from './validatePlan.ts';
