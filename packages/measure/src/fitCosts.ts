/**
 * What a measured step says the design's costs are: per block the median F, BI, BW (or fused B)
 * and optimizer time, the overlap factor of F&B pairs, and the point-to-point link, over the
 * trace's steady steps (`steadySteps`).
 */
import { type Dag, type DagNode, type Instruction, type Plan, PlanView } from '@stagecraft/ir';
import { fitDispatch } from './fitDispatch.ts';
import { fitLink, type LinkFit, median } from './linearFit.ts';
import { type MatchedSpan, type PlanMatch, steadySteps } from './matchPlan.ts';

export interface CostFit {
  readonly ms: number;
  readonly samples: number;
}

export interface BlockFit {
  readonly block: number;
  readonly name: string;
  F?: CostFit;
  BI?: CostFit;
  BW?: CostFit;
  /** A fused backward, measured whole. */
  B?: CostFit;
  UPD?: CostFit;
}

export interface CostFits {
  readonly blocks: BlockFit[];
  /** Measured F&B pair over the separate time of its members (1: no overlap gain). */
  readonly overlapFactor?: CostFit;
  readonly p2p?: LinkFit;
  /** The runtime's time to issue each instruction (fitDispatch.ts). */
  readonly dispatch?: CostFit;
  /**
   * Per collective op, its bus bandwidth (as nccl-tests reports it: the bytes each member moves
   * over the ring, 2(n−1)/n of the buffer for an all-reduce, (n−1)/n for the others) and the fixed
   * time of the group sizes measured. Reported, not written into the cluster: the simulator derives
   * collectives from its links by its own formulas.
   */
  readonly collectives?: Partial<Record<CollectiveOp, LinkFit>>;
  /** Steps of the trace the fit used. */
  readonly steps: readonly number[];
}

type ComputeOp = 'F' | 'BI' | 'BW' | 'B';

export function fitCosts(plan: Plan, dag: Dag, match: PlanMatch, alignedClocks: boolean): CostFits {
  const steps = steadySteps(match.matched);
  const read = new Set(steps);
  const used = match.matched.filter((s) => read.has(s.step));
  const nodeOf = new Map<string, DagNode>();
  for (const n of dag.nodes) nodeOf.set(n.id, n);

  const samples = new Map<string, number[]>();
  const add = (block: number, op: string, ms: number) => {
    const k = `${block}|${op}`;
    const list = samples.get(k) ?? [];
    list.push(ms);
    samples.set(k, list);
  };
  const pairs: MatchedSpan[] = [];
  let shares: ReturnType<typeof optimizerShares> | undefined;
  for (const s of used) {
    const ins = s.instruction;
    if (ins.op === 'OVERLAP') pairs.push(s);
    else if (ins.op === 'F' || ins.op === 'BI' || ins.op === 'BW' || ins.op === 'B') {
      const node = nodeOf.get(ins.id);
      if (node && node.block >= 0) add(node.block, ins.op, s.endMs - s.startMs);
    } else if (ins.op === 'UPD') {
      shares ??= optimizerShares(plan, dag);
      const group = shares.groupOf(s.device);
      const held = group === undefined ? undefined : shares.held.get(group);
      if (held) for (const [block, share] of held) add(block, 'UPD', (s.endMs - s.startMs) * share);
    }
  }

  const blocks: BlockFit[] = dag.blocks.map((b, block) => {
    const fit: BlockFit = { block, name: b.name };
    for (const op of ['F', 'BI', 'BW', 'B', 'UPD'] as const) {
      const xs = samples.get(`${block}|${op}`);
      if (xs) fit[op] = { ms: median(xs), samples: xs.length };
    }
    return fit;
  });

  // A pair's separate time from its members' fitted costs; a member without one leaves it out.
  const ratios: number[] = [];
  for (const s of pairs) {
    const ins = s.instruction as Extract<Instruction, { op: 'OVERLAP' }>;
    let separate = 0;
    for (const m of ins.members) {
      const node = nodeOf.get(m.id);
      const ms = node ? separateMs(blocks[node.block], m.op as ComputeOp) : undefined;
      if (ms === undefined) {
        separate = Number.NaN;
        break;
      }
      separate += ms;
    }
    if (separate > 0) ratios.push((s.endMs - s.startMs) / separate);
  }
  const out: { -readonly [K in keyof CostFits]: CostFits[K] } = { blocks, steps };
  if (ratios.length > 0) out.overlapFactor = { ms: median(ratios), samples: ratios.length };
  if (out.overlapFactor) fitFromPairs(pairs, blocks, dag, nodeOf, out.overlapFactor.ms);
  const dispatch = fitDispatch(plan, used);
  if (dispatch) out.dispatch = dispatch;
  if (alignedClocks) {
    const link = fitLink(transfers(used));
    if (link) out.p2p = link;
    const collectives = collectiveFits(used);
    if (collectives) out.collectives = collectives;
  }
  return out;
}

/**
 * Ops measured only inside pairs (a stage of two blocks whose split backward runs both weight
 * gradients in one slot): a pair's time over the overlap factor, less its members measured on
 * their own, is the rest's, shared among them as the model's own times share it (equally when it
 * has none). The median over the pairs is the op's fit.
 */
function fitFromPairs(
  pairs: readonly MatchedSpan[],
  blocks: BlockFit[],
  dag: Dag,
  nodeOf: ReadonlyMap<string, DagNode>,
  factor: number,
): void {
  const samples = new Map<string, { block: number; op: ComputeOp; xs: number[] }>();
  nextPair: for (const s of pairs) {
    const ins = s.instruction as Extract<Instruction, { op: 'OVERLAP' }>;
    let rest = (s.endMs - s.startMs) / factor;
    const open: { block: number; op: ComputeOp; weight: number }[] = [];
    for (const m of ins.members) {
      const node = nodeOf.get(m.id);
      if (!node || node.block < 0) continue nextPair;
      const op = m.op as ComputeOp;
      const ms = separateMs(blocks[node.block], op);
      if (ms !== undefined) rest -= ms;
      else open.push({ block: node.block, op, weight: modelMs(dag, node.block, op) });
    }
    if (open.length === 0) continue;
    const total = open.reduce((t, o) => t + o.weight, 0);
    for (const o of open) {
      const share = total > 0 ? o.weight / total : 1 / open.length;
      const k = `${o.block}|${o.op}`;
      let entry = samples.get(k);
      if (!entry) samples.set(k, (entry = { block: o.block, op: o.op, xs: [] }));
      entry.xs.push(Math.max(0, rest) * share);
    }
  }
  for (const { block, op, xs } of samples.values()) {
    const fit = blocks[block];
    if (fit && fit[op] === undefined) fit[op] = { ms: median(xs), samples: xs.length };
  }
}

/** The model's own time of a block's op (explicit ms, else FLOPs), the weight a shared rest is split by. */
function modelMs(dag: Dag, block: number, op: ComputeOp): number {
  const b = dag.blocks[block];
  const c = b?.ms ?? b?.flops;
  if (!c) return 0;
  return op === 'B' ? c.BI + c.BW : c[op];
}

function separateMs(fit: BlockFit | undefined, op: ComputeOp): number | undefined {
  if (!fit) return undefined;
  if (op === 'B') return fit.B?.ms ?? (fit.BI && fit.BW ? fit.BI.ms + fit.BW.ms : undefined);
  return fit[op]?.ms;
}

/**
 * A device's optimizer step covers every block it holds: its time is shared among them by their
 * parameter bytes (equally when none are given), the quantity Adam's work is proportional to.
 * Worked out once per fit: each device's group, and each group's blocks with their shares.
 */
function optimizerShares(plan: Plan, dag: Dag) {
  const view = new PlanView(plan);
  const groupOf = (device: number): number | undefined => {
    const group = view.deviceOf(device)?.group ?? -1;
    return group < 0 ? undefined : group;
  };
  const blocksOf = new Map<number, Set<number>>();
  for (const n of dag.nodes) {
    if (n.kind !== 'compute' || n.op !== 'F' || n.block < 0) continue;
    let set = blocksOf.get(n.group);
    if (!set) blocksOf.set(n.group, (set = new Set()));
    set.add(n.block);
  }
  const held = new Map<number, [block: number, share: number][]>();
  for (const [group, set] of blocksOf) {
    const blocks = [...set];
    const total = blocks.reduce((t, b) => t + dag.blocks[b]!.paramBytes, 0);
    held.set(
      group,
      blocks.map((b) => [b, total > 0 ? dag.blocks[b]!.paramBytes / total : 1 / blocks.length]),
    );
  }
  return { groupOf, held };
}

/** Point-to-point transfer times: from when both sides were ready to when the data arrived. */
function transfers(spans: readonly MatchedSpan[]): { bytes: number; ms: number }[] {
  const sends = new Map<string, MatchedSpan>();
  for (const s of spans)
    if (s.instruction.op === 'SEND')
      sends.set(`${s.step}|${s.device}|${s.instruction.peer}|${s.instruction.transfer}`, s);
  const out: { bytes: number; ms: number }[] = [];
  for (const r of spans) {
    const ins = r.instruction;
    if (ins.op !== 'RECV') continue;
    const send = sends.get(`${r.step}|${ins.peer}|${r.device}|${ins.transfer}`);
    if (!send) continue;
    const ms = r.endMs - Math.max(send.startMs, r.startMs);
    if (ms >= 0) out.push({ bytes: ins.bytes, ms });
  }
  return out;
}

type CollectiveOp = 'ALL_REDUCE' | 'REDUCE_SCATTER' | 'ALL_GATHER' | 'ALL_TO_ALL';

/**
 * A collective's time is from its last member's arrival to its last member's end (before that the
 * early members wait, which is the schedule's doing, not the link's); its bytes, the ring's bus
 * bytes. Only collectives every member of which was measured count.
 */
function collectiveFits(spans: readonly MatchedSpan[]): CostFits['collectives'] {
  const groups = new Map<
    string,
    { op: CollectiveOp; n: number; bytes: number; starts: number[]; ends: number[] }
  >();
  for (const s of spans) {
    const ins = s.instruction;
    if (
      ins.op !== 'ALL_REDUCE' &&
      ins.op !== 'REDUCE_SCATTER' &&
      ins.op !== 'ALL_GATHER' &&
      ins.op !== 'ALL_TO_ALL'
    )
      continue;
    const key = `${s.step}|${ins.collective}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { op: ins.op, n: ins.devices.length, bytes: ins.bytes, starts: [], ends: [] }));
    g.starts.push(s.startMs);
    g.ends.push(s.endMs);
  }
  const points = new Map<CollectiveOp, { bytes: number; ms: number }[]>();
  for (const g of groups.values()) {
    if (g.n < 2 || g.starts.length < g.n) continue;
    const share = g.op === 'ALL_REDUCE' ? (2 * (g.n - 1)) / g.n : (g.n - 1) / g.n;
    const ms = Math.max(...g.ends) - Math.max(...g.starts);
    if (ms < 0) continue;
    const list = points.get(g.op) ?? [];
    list.push({ bytes: share * g.bytes, ms });
    points.set(g.op, list);
  }
  if (points.size === 0) return undefined;
  const out: Partial<Record<CollectiveOp, LinkFit>> = {};
  for (const [op, list] of points) {
    const fit = fitLink(list);
    if (fit) out[op] = fit;
  }
  return out;
}
