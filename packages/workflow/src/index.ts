export { importPiper, importTorchCsv } from '@stagecraft/passes';
export { type CompareRow, compareDesigns } from './compare.ts';
export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportOptions,
  type ExportResult,
  exportDesign,
  exportRun,
} from './export.ts';
export {
  type Compiled,
  type DesignRun,
  type IncrementalRun,
  type RunFailure,
  type RunOptions,
  type RunSimulation,
  runDesign,
  simulateRun,
} from './run.ts';
