/**
 * What the timeline reads of a plan: each device's stages and streams in order (its lanes), and
 * the instructions it looks details up in. A Plan is one. So is an outline whose streams keep only
 * the instructions a first frame draws from, the plan's other instructions following later.
 */
import type { Instruction } from '@stagecraft/ir';

export interface TimelinePlan {
  readonly devices: readonly {
    readonly device: number;
    readonly stages: readonly number[];
    readonly streams: readonly { readonly stream: string; readonly instructions: readonly Instruction[] }[];
  }[];
}

/**
 * The plan cut to its lanes and its overlapped units (their members' tags colour and label the
 * units): a result's first frame draws from this; hover details and arrows need the whole plan.
 */
export function planOutline(plan: TimelinePlan): TimelinePlan {
  return {
    devices: plan.devices.map((d) => ({
      device: d.device,
      stages: d.stages,
      streams: d.streams.map((s) => ({
        stream: s.stream,
        instructions: s.instructions.filter((i) => i.op === 'OVERLAP'),
      })),
    })),
  };
}
