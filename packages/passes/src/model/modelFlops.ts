/**
 * Model FLOPs of one training step, the numerator of MFU: every F, B, BI and BW a plan runs, on
 * every device, at the FLOPs the model gives them. Recomputation is not model work (it is what
 * MFU excludes and hardware FLOPs utilisation would count), so RECOMPUTE is left out.
 */
import type { ComputeInstruction, Plan } from '@stagecraft/ir';

const MODEL_WORK = new Set<ComputeInstruction['op']>(['F', 'B', 'BI', 'BW']);

export function modelFlopsPerStep(plan: Plan): number {
  let total = 0;
  const add = (i: ComputeInstruction) => {
    if (MODEL_WORK.has(i.op)) total += i.flops ?? 0;
  };
  for (const d of plan.devices)
    for (const s of d.streams)
      for (const i of s.instructions) {
        if (i.op === 'OVERLAP') i.members.forEach(add);
        else if (i.op === 'F' || i.op === 'B' || i.op === 'BI' || i.op === 'BW') add(i);
      }
  return total;
}
