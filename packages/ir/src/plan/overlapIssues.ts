/**
 * An OVERLAP runs its members together, so none may need another's result: a runtime issuing them
 * at once would read a tensor not yet made. With the @2 fields (each member's block and
 * microbatch, the model's data flow) the dependence is known without ids: within one microbatch a
 * forward needs the forwards of the blocks upstream of it, every backward needs the forwards, and
 * a backward of a block (B, BI, BW) needs the input gradient (B, BI) of every block downstream.
 * A plan without the @2 fields is not checked here (the compiler's order pass already made its
 * overlap units of independent ops only).
 */
import type { IssueList } from './issueList.ts';
import type { ComputeInstruction, Plan } from './plan.ts';

export function overlapIssues(plan: Plan, issues: IssueList): void {
  const blocks = plan.model?.blocks;
  if (!blocks) return;
  let upstream: Set<number>[] | undefined;
  plan.devices.forEach((d, di) => {
    d.streams.forEach((s, si) => {
      s.instructions.forEach((ins, k) => {
        if (ins.op !== 'OVERLAP') return;
        upstream ??= ancestors(blocks.map((b) => b.inputs));
        const ms = ins.members;
        for (let a = 0; a < ms.length; a++)
          for (let b = 0; b < ms.length; b++)
            if (a !== b && needs(ms[a]!, ms[b]!, upstream))
              issues.add(
                `devices[${di}].streams[${si}].instructions[${k}].members[${a}]`,
                `${ms[a]!.id} needs ${ms[b]!.id}, which the same OVERLAP ${ins.id} runs at once: members of an OVERLAP must be independent`,
              );
      });
    });
  });
}

const BACKWARD = new Set(['B', 'BI', 'BW']);

/** Whether member x needs member y's result (same microbatch; blocks by the model's data flow). */
function needs(x: ComputeInstruction, y: ComputeInstruction, upstream: Set<number>[]): boolean {
  if (x.block === undefined || y.block === undefined || x.microbatch !== y.microbatch) return false;
  if (x.op === 'F' || x.op === 'RECOMPUTE')
    return (y.op === 'F' || y.op === 'RECOMPUTE') && upstream[x.block]!.has(y.block);
  if (!BACKWARD.has(x.op)) return false;
  if (y.op === 'F') return true;
  return (y.op === 'B' || y.op === 'BI') && upstream[y.block]!.has(x.block);
}

/** Per block, every block whose output reaches it. */
function ancestors(inputs: readonly (readonly number[])[]): Set<number>[] {
  const memo: (Set<number> | undefined)[] = new Array(inputs.length);
  const visit = (b: number, path: Set<number>): Set<number> => {
    const seen = memo[b];
    if (seen) return seen;
    const out = new Set<number>();
    path.add(b);
    for (const a of inputs[b] ?? []) {
      if (path.has(a) || a >= inputs.length) continue;
      out.add(a);
      for (const x of visit(a, path)) out.add(x);
    }
    path.delete(b);
    memo[b] = out;
    return out;
  };
  return inputs.map((_, b) => visit(b, new Set()));
}
