/** Messages between the compile pool and its worker threads. */
import type { Design } from '@stagecraft/ir';
import type { CompileInclude, CompileOutcome } from '../compileResponse.ts';
import type { ExportOptions, ExportOutcome } from '../exportFile.ts';
import type { ExportFormat } from '../schemas.ts';

export type Task =
  | {
      kind: 'compile';
      design: Design;
      include: CompileInclude;
      /** The opening of the answer the worker writes before the compile's fields. */
      head: string;
    }
  | {
      kind: 'export';
      design: Design;
      format: ExportFormat;
      options: ExportOptions;
      /** The largest answer the server sends (Limits.exportBytes). */
      maxBytes: number;
    };

export type TaskOutcome<T extends Task> = T extends { kind: 'compile' } ? CompileOutcome : ExportOutcome;

export interface JobMessage {
  type: 'job';
  id: number;
  task: Task;
  maxOps: number;
  /** Set when the caller names the design: the worker keeps its last compile for the next edit. */
  designId?: string;
  /** A large job: the worker lowers its thread's CPU priority (for good: Linux lets no thread raise it back). */
  large?: boolean;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'done'; id: number; outcome: CompileOutcome | ExportOutcome }
  | { type: 'failed'; id: number; message: string };
