/** Files for and from the engines teams run: Piper programs and torch.distributed.pipelining CSVs. */

export { piperRefusal, torchRefusal } from './exportRefusal.ts';
export { loadPlan } from './loadPlan.ts';
export {
  executedPlan,
  exportPiperProgram,
  formatProgram,
  importPiper,
  type PiperImportOptions,
  type PiperResult,
} from './piperProgram.ts';
export {
  cellActions,
  formatCell,
  formatTorchRows,
  parseTorchRows,
  TORCH_DIALECTS,
  type TorchAction,
  type TorchActionType,
  type TorchCell,
  type TorchDialect,
  type TorchOverlap,
} from './torchAction.ts';
export {
  exportTorchCsv,
  planToTorchRows,
  TORCH_FORMATS,
  type TorchExportOptions,
  type TorchFormat,
} from './torchExport.ts';
export { importTorchCsv, type TorchImportOptions } from './torchImport.ts';
