export { renderAsciiTimeline } from './ascii.ts';
export * from './costModel.ts';
export { type MetricsReport, type MetricsTimings, metricsReport } from './metricsReport.ts';
export { NCCL_PROFILES, type NcclChoice, type NcclProfile, ncclChoice } from './ncclTuning.ts';
export { simulate } from './simulate.ts';
export {
  MAX_STEPS,
  repeatedPlan,
  type SteadyState,
  type SteadyStateResult,
  steadyState,
} from './steadyState.ts';
export { exposedCommPerDeviceMs } from './stepMetrics.ts';
export { type ChromeTrace, chromeTrace, type TraceEvent, type TraceOptions } from './trace.ts';
export type * from './types.ts';
