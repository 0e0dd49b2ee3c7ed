/**
 * Measurements against predictions: measured traces in (Stagecraft's runtime, PyTorch's profiler
 * in its Kineto and legacy forms), matched to the plan by instruction id, costs fitted from them,
 * and the calibrated design replayed against what was measured.
 */
export {
  type Calibration,
  type CalibrationResult,
  calibrate,
  calibrateFromTable,
  compareMeasured,
  type MeasuredComparison,
  type TableCalibration,
} from './calibrate.ts';
export { type CalibratedDesign, type CalibrationOrigin, calibratedDesign } from './calibratedDesign.ts';
export { type BlockFit, type CostFit, type CostFits, fitCosts } from './fitCosts.ts';
export { dispatchGaps, fitDispatch } from './fitDispatch.ts';
export { fitLink, type LinkFit, median, quantile } from './linearFit.ts';
export { type MatchedSpan, matchPlan, type PlanMatch } from './matchPlan.ts';
export {
  type MeasuredDevice,
  type MeasuredSpan,
  type MeasuredStep,
  numberSteps,
  stepCount,
  stepTimesMs,
  type TraceSource,
} from './measuredStep.ts';
export { type MeasuredTimeline, measuredTimeline } from './measuredTimeline.ts';
export { mergeTraces } from './mergeTraces.ts';
export { looksLikeInstructionId, rankFromFileName } from './readers/instructionName.ts';
export { type MeasurementRead, readMeasurement } from './readers/readMeasurement.ts';
export { type ReadTraceOptions, readTrace, type TraceRead, traceFromDocument } from './readers/readTrace.ts';
export {
  csvPlace,
  MEASURED_COSTS_FORMAT,
  type MeasuredCosts,
  measuredCostsSchema,
} from './readers/stageTable.ts';
export { type Divergence, type Replay, replay } from './replay.ts';
