/**
 * Programs in torch.distributed.pipelining's action notation (current dialect): `{stage}F{mb}`,
 * `I` backward for inputs, `W` backward for weights, `B` full backward, and an overlapped pair as
 * `(0F7;7B3)OVERLAP_F_B`. One row per rank, as `_PipelineScheduleRuntime._load_csv` reads them.
 */
import type { Action, ActionPass, Slot } from './builder.ts';

const TORCH_TYPE: Record<ActionPass, string> = { F: 'F', BI: 'I', BW: 'W', B: 'B' };

/**
 * Names the torch stage of an action. torch has no bidirectional schedule, so a DualPipe export
 * must say how its two model copies map to stage ids (e.g. up-stage s as p+s).
 */
export type TorchStageId = (a: Action) => number;

const ownStage: TorchStageId = (a) => a.stage;

export function torchAction(a: Action, stageId: TorchStageId = ownStage): string {
  return `${stageId(a)}${TORCH_TYPE[a.pass]}${a.mb}`;
}

export function torchSlot(slot: Slot, stageId: TorchStageId = ownStage): string {
  if (slot.length === 1) return torchAction(slot[0]!, stageId);
  return `(${slot.map((a) => torchAction(a, stageId)).join(';')})OVERLAP_F_B`;
}

export function torchRow(program: readonly Slot[], stageId: TorchStageId = ownStage): string[] {
  return program.map((slot) => torchSlot(slot, stageId));
}

/** The `compute_only` CSV: one line per rank, one cell per slot. */
export function torchCsv(programs: readonly (readonly Slot[])[], stageId: TorchStageId = ownStage): string {
  return programs.map((program) => torchRow(program, stageId).join(',')).join('\n');
}
