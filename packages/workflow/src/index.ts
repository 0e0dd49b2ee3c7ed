/**
 * The way from a design to what users take away (a simulated step, an export, a comparison), for
 * the API, the CLI and the web app alike: they call this rather than wiring compile and simulate
 * themselves, so each path compiles a design once.
 */
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
  steadyRun,
} from './run.ts';
