export {
  type LaunchOptions,
  type LaunchOutcome,
  launchRuntime,
  RUNTIME_LIMIT_MS,
} from './launch.ts';
export { measuredTrace } from './measuredTrace.ts';
export { checkOutputFile } from './outputFile.ts';
export { pythonInterpreter, RUNTIME_DIR } from './python.ts';
export {
  type DeviceMemory,
  type MeasuredEvents,
  type RuntimeResult,
  RuntimeResultSchema,
} from './result.ts';
