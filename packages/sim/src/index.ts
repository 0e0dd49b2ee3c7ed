export { importPiper, importTorchCsv } from '@stagecraft/passes';
export { renderAsciiTimeline } from './ascii.ts';
export { type CompareRow, compareDesigns } from './compare.ts';
export * from './costModel.ts';
export {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportOptions,
  type ExportResult,
  exportDesign,
} from './export.ts';
export { type MetricsReport, type MetricsTimings, metricsReport } from './metricsReport.ts';
export { simulate } from './simulate.ts';
export { exposedCommPerDeviceMs } from './stepMetrics.ts';
export { type ChromeTrace, chromeTrace, type TraceEvent, type TraceOptions } from './trace.ts';
export type * from './types.ts';
