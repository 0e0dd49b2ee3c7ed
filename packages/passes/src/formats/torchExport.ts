/**
 * A compiled plan as torch.distributed.pipelining rows: one row per pipeline rank (device group),
 * each cell an action of `_PipelineScheduleRuntime`. `compute_only` rows are the compute stream
 * of the rank (torch inserts communication itself when it loads them); `compute_comms` rows hold
 * every instruction of the rank in one list, in the order the simulated step issues them, because
 * torch's runtime executes one list per rank where the plan has one list per stream.
 *
 * torch runs a pure pipeline: stages that are PP regions, one microbatch dimension, each stage on
 * one rank. Anything else (DualPipe's two model copies, expert or tensor parallelism) is refused
 * with the reason, never written as a file torch would misread. Recompute and offload are
 * properties of a stage's module in torch (activation checkpointing, saved-tensor hooks), not
 * schedule actions: a RECOMPUTE runs inside the backward that follows it, OFFLOAD / RELOAD inside
 * the module, so the rows leave them out.
 */
import {
  type ComputeInstruction,
  type DevicePlan,
  formatPath,
  type Instruction,
  type Issue,
  type Plan,
} from '@stagecraft/ir';
import type { ExpandedDirective } from '../driver/compileTypes.ts';
import { torchRefusal } from './exportRefusal.ts';
import {
  cellActions,
  formatTorchRows,
  isCompute as isComputeType,
  type TorchAction,
  type TorchCell,
  type TorchCompute,
  type TorchDialect,
  torchAction,
} from './torchAction.ts';

export type TorchFormat = 'compute_only' | 'compute_comms';
export const TORCH_FORMATS: readonly TorchFormat[] = ['compute_only', 'compute_comms'];

export interface TorchExportOptions {
  format?: TorchFormat;
  dialect?: TorchDialect;
  /**
   * When each instruction started in a simulation of the plan (device number, instruction id).
   * `compute_comms` needs it to merge a device's streams into torch's single list per rank.
   */
  startMs?: (device: number, id: string) => number | undefined;
}

export type TorchRowsResult = { ok: true; rows: TorchCell[][] } | { ok: false; errors: Issue[] };

export function exportTorchCsv(
  plan: Plan,
  program: readonly ExpandedDirective[],
  options: TorchExportOptions = {},
): { ok: true; text: string } | { ok: false; errors: Issue[] } {
  const r = planToTorchRows(plan, program, options);
  return r.ok ? { ok: true, text: formatTorchRows(r.rows, options.dialect ?? 'current') } : r;
}

export function planToTorchRows(
  plan: Plan,
  program: readonly ExpandedDirective[],
  options: TorchExportOptions = {},
): TorchRowsResult {
  const format = options.format ?? 'compute_only';
  const pathOf = (ins: Instruction) => {
    const d = ins.provenance?.directive;
    const e = d === null || d === undefined ? undefined : program[d];
    return e ? formatPath(e.path) : '';
  };
  const refused = torchRefusal(program);
  if (refused) return { ok: false, errors: [refused] };
  const dims = program
    .filter((e) => e.directive.op === 'split')
    .map((e) => (e.directive as { dim_name: string }).dim_name);
  const mbDim = dims[0];

  // Rank r of torch's pipeline group is the group with the r-th lowest device.
  const groups = plan.groups.filter((g) => g.length > 0).sort((a, b) => Math.min(...a) - Math.min(...b));
  // A large group may be lowered once: one device's program standing for its `replicas`.
  const ranks = groups.map((g) => plan.devices.find((d) => g.includes(d.device) && d.streams.length > 0));
  // Stage of each PP value: torch numbers stages 0..S−1 in forward order.
  const holder = new Map<number, number>();
  const errors: Issue[] = [];
  ranks.forEach((dp, g) => {
    if (!dp) return;
    for (const s of dp.streams)
      for (const ins of s.instructions)
        for (const c of computeParts(ins)) {
          if (c.op === 'UPD') continue;
          const pp = c.tags.PP;
          if (typeof pp !== 'number') {
            errors.push({
              path: pathOf(c),
              message: `${c.id} has no PP tag: torch runs every op inside a pipeline stage`,
            });
            continue;
          }
          const other = holder.get(pp);
          if (other !== undefined && other !== g)
            errors.push({
              path: pathOf(c),
              message: `PP=${pp} runs on devices [${groups[other]!.join(', ')}] and [${groups[g]!.join(', ')}]: a torch stage lives on one rank`,
            });
          holder.set(pp, g);
        }
  });
  if (errors.length > 0) return { ok: false, errors: errors.slice(0, 20) };
  const stageOf = new Map([...holder.keys()].sort((a, b) => a - b).map((pp, s) => [pp, s]));
  const mbOf = (tags: Record<string, number | string>) => {
    const v = mbDim === undefined ? 0 : tags[mbDim];
    return typeof v === 'number' ? v : 0;
  };
  const computeAction = (c: ComputeInstruction): TorchAction | null => {
    if (c.op === 'RECOMPUTE') return null;
    return torchAction(stageOf.get(c.tags.PP as number)!, c.op as TorchCompute, mbOf(c.tags));
  };

  const rows: TorchCell[][] = [];
  for (let g = 0; g < ranks.length; g++) {
    const dp = ranks[g];
    if (!dp) {
      rows.push([]);
      continue;
    }
    const list = format === 'compute_only' ? computeList(dp) : mergedList(dp, options.startMs);
    if (typeof list === 'string') return fail('', list);
    const row: TorchCell[] = [];
    const rowErrors = buildRow(list, row, {
      format,
      computeAction,
      stageOf,
      mbOf,
      pathOf,
    });
    if (rowErrors.length > 0) return { ok: false, errors: rowErrors };
    rows.push(format === 'compute_comms' ? finishComms(row) : row);
  }
  if (format === 'compute_only') insertIdleSlots(rows, program, stageOf, mbDim);
  return { ok: true, rows };
}

function fail(path: string, message: string): TorchRowsResult {
  return { ok: false, errors: [{ path, message }] };
}

function computeParts(ins: Instruction): ComputeInstruction[] {
  if (ins.op === 'OVERLAP') return ins.members;
  if (
    ins.op === 'F' ||
    ins.op === 'B' ||
    ins.op === 'BI' ||
    ins.op === 'BW' ||
    ins.op === 'RECOMPUTE' ||
    ins.op === 'UPD'
  )
    return [ins];
  return [];
}

/** The rank's compute stream; compute placed on any other stream has no torch equivalent. */
function computeList(dp: DevicePlan): Instruction[] | string {
  const out: Instruction[] = [];
  for (const s of dp.streams) {
    for (const ins of s.instructions) {
      if (computeParts(ins).length === 0) continue;
      if (s.stream !== 'compute')
        return `device ${dp.device} computes ${ins.id} on stream "${s.stream}": torch runs one compute stream per rank`;
      out.push(ins);
    }
  }
  return out;
}

/**
 * All instructions of a device in one list: at each step the instruction that started first in
 * the simulation among those whose stream predecessor and waits are already listed. At equal
 * times communication goes first, as torch issues a send right after the compute that produced
 * it and posts receives before the compute that needs them.
 */
function mergedList(dp: DevicePlan, startMs: TorchExportOptions['startMs']): Instruction[] | string {
  if (!startMs) return 'compute_comms needs the simulated step to order each rank’s streams';
  const streams = dp.streams.map((s) => s.instructions);
  const pos = streams.map(() => 0);
  const listed = new Set<string>();
  const out: Instruction[] = [];
  const total = streams.reduce((n, s) => n + s.length, 0);
  while (out.length < total) {
    let best = -1;
    let bestKey: [number, number] = [0, 0];
    for (let s = 0; s < streams.length; s++) {
      const ins = streams[s]![pos[s]!];
      if (!ins?.waits.every((w) => listed.has(w))) continue;
      const key: [number, number] = [startMs(dp.device, ins.id) ?? 0, computeParts(ins).length > 0 ? 1 : 0];
      if (best < 0 || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = s;
        bestKey = key;
      }
    }
    if (best < 0) return `device ${dp.device}: the plan's streams wait on each other in a cycle`;
    const ins = streams[best]![pos[best]!]!;
    pos[best]! += 1;
    listed.add(ins.id);
    for (const m of computeParts(ins)) listed.add(m.id);
    out.push(ins);
  }
  return out;
}

interface RowContext {
  format: TorchFormat;
  computeAction: (c: ComputeInstruction) => TorchAction | null;
  stageOf: Map<number, number>;
  mbOf: (tags: Record<string, number | string>) => number;
  pathOf: (ins: Instruction) => string;
}

const same = (a: TorchAction, b: TorchAction) => a.stage === b.stage && a.type === b.type && a.mb === b.mb;

function isIssue(x: TorchAction | Issue): x is Issue {
  return 'message' in x;
}

function buildRow(list: readonly Instruction[], row: TorchCell[], ctx: RowContext): Issue[] {
  // The cell of the latest compute action: the blocks of one stage run as one torch action, even
  // when the plan gathers each block's parameters between them.
  let lastCompute = -1;
  const sameAsLast = (a: TorchAction): boolean => {
    const c = row[lastCompute];
    if (lastCompute < 0 || !c || c.kind !== 'action' || !same(c, a)) return false;
    const gathers: TorchCell[] = [];
    const others: TorchCell[] = [];
    for (let i = lastCompute + 1; i < row.length; i++) {
      const x = row[i] ?? null;
      if (x?.kind !== 'action' || isComputeType(x.type)) return false;
      if (x.type === 'UNSHARD' && x.stage === a.stage) gathers.push(x);
      else others.push(x); // a transfer or a gradient reduction meanwhile stays after the action
    }
    // Gathers of the stage's later blocks move before the action that uses them.
    const action = row[lastCompute]!;
    row.splice(lastCompute, row.length - lastCompute, ...gathers, action, ...others);
    lastCompute += gathers.length;
    return true;
  };
  for (const ins of list) {
    if (ins.op === 'UPD') continue;
    if (ins.op === 'OVERLAP') {
      const actions: TorchAction[] = [];
      for (const m of ins.members) {
        const a = ctx.computeAction(m);
        if (a === null) continue;
        // The blocks of one stage run as one torch action.
        if (!actions.some((b) => same(a, b))) actions.push(a);
      }
      if (actions.length === 0) continue;
      row.push(actions.length === 1 ? actions[0]! : { kind: 'overlap', actions });
      lastCompute = row.length - 1;
      continue;
    }
    if (computeParts(ins).length > 0) {
      const a = ctx.computeAction(ins as ComputeInstruction);
      if (a === null || sameAsLast(a)) continue;
      row.push(a);
      lastCompute = row.length - 1;
      continue;
    }
    const cell = commAction(ins, ctx);
    if (cell === null) continue;
    if (isIssue(cell)) return [cell];
    row.push(cell);
  }
  return [];
}

/** A communication instruction as a torch action; null for what torch's list leaves out. */
function commAction(ins: Instruction, ctx: RowContext): TorchAction | Issue | null {
  const path = ctx.pathOf(ins);
  const pp = ins.tags.PP;
  const stage = typeof pp === 'number' ? ctx.stageOf.get(pp) : undefined;
  switch (ins.op) {
    case 'SEND':
    case 'RECV': {
      const pass = ins.tags.PASS;
      if (stage === undefined)
        return {
          path,
          message: `${ins.id} carries no PP stage: torch transfers between pipeline stages only`,
        };
      const mb = ctx.mbOf(ins.tags);
      if (pass === 'F')
        return torchAction(
          ins.op === 'SEND' ? stage : stage + 1,
          ins.op === 'SEND' ? 'SEND_F' : 'RECV_F',
          mb,
        );
      if (pass === 'B' || pass === 'BI')
        return torchAction(
          ins.op === 'SEND' ? stage : stage - 1,
          ins.op === 'SEND' ? 'SEND_B' : 'RECV_B',
          mb,
        );
      return {
        path,
        message: `${ins.id} transfers the output of ${String(pass)}: torch sends only activations (F) and input gradients (B, I)`,
      };
    }
    case 'ALL_GATHER':
    case 'REDUCE_SCATTER':
    case 'ALL_REDUCE':
      if (stage === undefined)
        return {
          path,
          message: `${ins.id} (${ins.op}) belongs to no PP stage: torch reshards and reduces per stage`,
        };
      return torchAction(stage, ins.op === 'ALL_GATHER' ? 'UNSHARD' : 'REDUCE_GRAD');
    case 'ALL_TO_ALL':
      return { path, message: `${ins.id}: all-to-all (expert parallelism) has no torch pipeline action` };
    default:
      return null;
  }
}

/**
 * torch's stage ops. REDUCE_GRAD once per stage, right after its last backward (B or W) as torch's
 * `_add_reduce_grad` places it, or where the plan's last gradient reduction of the stage ran if
 * that is later: torch scales (and, data parallel, reduces) a stage's gradients there. UNSHARD
 * only for a stage not already unsharded; RESHARD after the stage's last compute before it is
 * gathered again or the step ends (after its REDUCE_GRAD, as torch's lowering orders them).
 */
function finishComms(row: TorchCell[]): TorchCell[] {
  const reduceAfter = new Map<number, number>();
  row.forEach((c, i) => {
    for (const a of cellActions(c))
      if (a.type === 'B' || a.type === 'BW' || a.type === 'REDUCE_GRAD') reduceAfter.set(a.stage, i);
  });
  // After the send of the last backward's gradient too, as torch issues a send with its compute.
  for (const [s, at] of reduceAfter) {
    let i = at;
    for (
      let next = row[i + 1];
      next?.kind === 'action' && next.type === 'SEND_B' && next.stage === s;
      next = row[i + 1]
    )
      i++;
    reduceAfter.set(s, i);
  }
  const kept: TorchCell[] = [];
  row.forEach((c, i) => {
    if (!(c?.kind === 'action' && c.type === 'REDUCE_GRAD')) kept.push(c);
    for (const [s, at] of reduceAfter) if (at === i) kept.push(torchAction(s, 'REDUCE_GRAD'));
  });
  // A gather after the stage's last compute (ZeRO-1/2 gathering updated parameters after the
  // optimizer step) is the optimizer's business, not the schedule's: torch has no UNSHARD for it.
  const computesLater = new Set<number>();
  for (let i = kept.length - 1; i >= 0; i--) {
    const c = kept[i]!;
    if (c?.kind === 'action' && c.type === 'UNSHARD' && !computesLater.has(c.stage)) kept.splice(i, 1);
    else for (const a of cellActions(c)) if (isComputeType(a.type)) computesLater.add(a.stage);
  }
  const gathered = new Set<number>();
  for (const c of kept) if (c?.kind === 'action' && c.type === 'UNSHARD') gathered.add(c.stage);
  if (gathered.size === 0) return kept;
  const out: TorchCell[] = [];
  const active = new Set<number>();
  // Where each active stage last computed, in `out`.
  const lastCompute = new Map<number, number>();
  const reshard = (s: number) => {
    const at = lastCompute.get(s) ?? out.length - 1;
    out.splice(at + 1, 0, torchAction(s, 'RESHARD'));
    for (const [k, v] of lastCompute) if (v > at) lastCompute.set(k, v + 1);
    active.delete(s);
    lastCompute.delete(s);
  };
  for (const c of kept) {
    if (c?.kind === 'action' && c.type === 'UNSHARD') {
      if (active.has(c.stage)) {
        if (lastCompute.has(c.stage)) reshard(c.stage);
        else continue;
      }
      active.add(c.stage);
      out.push(c);
      continue;
    }
    out.push(c);
    for (const a of cellActions(c))
      if (active.has(a.stage) && a.type !== 'UNSHARD' && a.type !== 'RESHARD')
        lastCompute.set(a.stage, out.length - 1);
  }
  for (const s of [...active]) reshard(s);
  return out;
}

/**
 * Empty cells: an `order` slot with no filters is an idle step of its rank (torch's empty cell).
 * Each is written before the cell of the next slot that names one action, or at the row's end.
 */
function insertIdleSlots(
  rows: TorchCell[][],
  program: readonly ExpandedDirective[],
  stageOf: Map<number, number>,
  mbDim: string | undefined,
): void {
  const key = (a: { stage: number; type: string; mb?: number | undefined }) => `${a.stage}:${a.type}:${a.mb}`;
  const rowOfKey = new Map<string, { row: number; cell: number }>();
  rows.forEach((row, r) => {
    row.forEach((c, i) => {
      const first = cellActions(c)[0];
      if (first && !rowOfKey.has(key(first))) rowOfKey.set(key(first), { row: r, cell: i });
    });
  });
  const before = rows.map((row) => new Array<number>(row.length + 1).fill(0));
  for (const e of program) {
    if (e.directive.op !== 'order') continue;
    let pending = 0;
    let target: number | undefined;
    for (const slot of e.directive.filters) {
      if (slot.length === 0) {
        pending++;
        continue;
      }
      const f = slot[0]!;
      const pp = f.PP;
      const pass = f.PASS;
      const mb = mbDim === undefined ? 0 : f[mbDim];
      const stage = typeof pp === 'number' ? stageOf.get(pp) : undefined;
      const at =
        stage !== undefined && typeof mb === 'number' && typeof pass === 'string' && pass !== '*'
          ? rowOfKey.get(key({ stage, type: pass, mb }))
          : undefined;
      if (!at) continue;
      target = at.row;
      before[at.row]![at.cell]! += pending;
      pending = 0;
    }
    if (target !== undefined) before[target]![rows[target]!.length]! += pending;
  }
  rows.forEach((row, r) => {
    const out: TorchCell[] = [];
    for (let i = 0; i <= row.length; i++) {
      for (let k = 0; k < before[r]![i]!; k++) out.push(null);
      if (i < row.length) out.push(row[i]!);
    }
    rows[r] = out;
  });
}
