/**
 * Lowers the ordered, partitioned DAG to `stagecraft/plan@1`: per device, per stream, the
 * instructions in order, each with the ids it waits for on other streams of its device. Members of
 * a device group run the same program; a SEND/RECV's peer is the device of the same rank in the
 * other group.
 *
 * Everything runs on node indices: lanes from `partition`, their order from `stream-order`, waits
 * from the in-edges. Strings appear only where the plan holds them, and those are the DAG's own id
 * strings, so the plan's waits are the very strings of the ids they name. A SEND, its RECV and the
 * op whose output they carry share one tags object.
 */
import {
  type ComputeInstruction,
  type ComputeNode,
  type Dag,
  type DagNode,
  type DevicePlan,
  type Instruction,
  type P2PInstruction,
  type P2PNode,
  PLAN_FORMAT,
  type Plan,
  type StreamPlan,
} from '@stagecraft/ir';
import { type Adjacency, inEdges } from '../adjacency.ts';
import { deviceCount } from '../cluster.ts';
import type { Pass } from '../pass.ts';
import { compactGroups } from './replicaLayout.ts';
import { stepTotals, tokensPerMicrobatch, trainingState } from './trainingState.ts';

type Tags = Record<string, number | string>;

export const lowerPlanPass: Pass = {
  name: 'lower-plan',
  run(dag, ctx) {
    const { laneOf, lanes, groupLanes } = ctx.partition!;
    const { units, laneOff, laneUnits } = ctx.streamOrder!;
    const { rep, members } = units;
    const nodes = dag.nodes;
    const N = nodes.length;
    const inc = inEdges(N, dag.edges);
    const efrom = dag.edges.from;
    const laneGroup = new Int32Array(lanes.length);
    for (let l = 0; l < lanes.length; l++) laneGroup[l] = lanes[l]!.group;
    const inOverlap = new Uint8Array(N);
    const overlapIds = new Map<number, string>();
    for (const [r, ms] of members) {
      inOverlap[r] = 1;
      overlapIds.set(r, overlapId(dag, ms));
    }
    const idOf = (r: number): string => (inOverlap[r] === 1 ? overlapIds.get(r)! : nodes[r]!.id);
    const held = heldBlocks(dag);
    const updMs = held.map((blocks) => {
      let ms = 0;
      for (const b of blocks) ms += dag.blocks[b]!.ms?.UPD ?? 0;
      return ms;
    });
    const tags = tagMaker(dag, inc);

    const compute = (n: ComputeNode, i: number, waits: string[]): ComputeInstruction => {
      const ms = computeMs(dag, n, updMs);
      const flops = computeFlops(dag, n);
      const t = tags(i);
      // One literal per combination of optional fields, so each instruction is built with its
      // final shape (adding fields one by one would reshape hundreds of thousands of objects).
      if (ms !== undefined && flops === undefined) {
        const a = n.allocBytes;
        const f = n.freeBytes;
        if (a > 0 && f <= 0)
          return { op: n.op, id: n.id, tags: t, waits, provenance: n.provenance, ms, allocBytes: a };
        if (a <= 0 && f > 0)
          return { op: n.op, id: n.id, tags: t, waits, provenance: n.provenance, ms, freeBytes: f };
        if (a <= 0 && f <= 0) return { op: n.op, id: n.id, tags: t, waits, provenance: n.provenance, ms };
      }
      const ins: ComputeInstruction = { op: n.op, id: n.id, tags: t, waits, provenance: n.provenance };
      if (ms !== undefined) ins.ms = ms;
      if (flops !== undefined) ins.flops = flops;
      if (n.allocBytes > 0) ins.allocBytes = n.allocBytes;
      if (n.freeBytes > 0) ins.freeBytes = n.freeBytes;
      return ins;
    };

    // Ids on other lanes of the same group that node i (of unit `self`, on lane `lane`) waits for,
    // appended to `into`; `seen` marks units already listed for this unit.
    const seen = new Int32Array(N).fill(-1);
    const waitsOf = (i: number, self: number, lane: number, into: string[] | undefined) => {
      const g = laneGroup[lane]!;
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
        const u = efrom[inc.edge[k]!]!;
        const lu = laneOf[u]!;
        if (lu < 0 || lu === lane || laneGroup[lu] !== g) continue;
        const r = rep[u]!;
        if (r === self || seen[r] === self) continue;
        seen[r] = self;
        if (into === undefined) into = [];
        into.push(idOf(r));
      }
      return into;
    };

    // Per group: its lanes' instructions, with SEND/RECV peers of the group's first device.
    const groups = dag.groups;
    const groupOps = new Array<number>(groups.length).fill(0);
    const groupStreams = groupLanes.map((own, g) => {
      const sorted = [...own].sort((a, b) => streamRank(lanes[a]!.stream, lanes[b]!.stream));
      return sorted.map((lane) => {
        const instructions: Instruction[] = [];
        for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++) {
          const i = laneUnits[k]!;
          if (inOverlap[i] === 1) {
            const ms = members.get(i)!;
            let waits: string[] | undefined;
            for (const m of ms) waits = waitsOf(m, i, lane, waits);
            const ins: Instruction = {
              op: 'OVERLAP',
              id: overlapIds.get(i)!,
              tags: {},
              waits: waits ?? [],
              members: ms.map((m) => compute(nodes[m] as ComputeNode, m, NO_WAITS)),
            };
            const total = overlapMs(dag, ms, updMs);
            if (total !== undefined) ins.ms = total;
            instructions.push(ins);
            groupOps[g]! += ms.length - 1;
            continue;
          }
          const waits = waitsOf(i, i, lane, undefined) ?? NO_WAITS;
          const n = nodes[i]!;
          switch (n.kind) {
            case 'compute':
              instructions.push(compute(n, i, waits));
              break;
            case 'p2p':
              instructions.push(p2pInstruction(n, tags(i), waits, groups[n.peerGroup]![0]!));
              break;
            case 'collective':
              instructions.push({
                op: n.op,
                id: n.id,
                tags: tags(i),
                waits,
                // Shared: a group's collectives name one array, which checks cache by identity.
                devices: n.devices as number[],
                bytes: n.bytes,
                collective: n.id,
                provenance: n.provenance,
              });
              break;
            case 'memory':
              instructions.push({
                op: n.op,
                id: n.id,
                tags: tags(i),
                waits,
                bytes: n.bytes,
                provenance: n.provenance,
              });
              break;
            case 'control':
              break;
          }
        }
        groupOps[g]! += instructions.length;
        return { lane, stream: lanes[lane]!.stream, instructions };
      });
    });

    const streamSpec = new Map(dag.streams.map((s) => [s.name, s]));
    const total = deviceCount(ctx.design.cluster);
    const groupOf = new Int32Array(total).fill(-1);
    const rankOf = new Int32Array(total);
    groups.forEach((g, gi) => {
      g.forEach((d, r) => {
        if (d < total) {
          groupOf[d] = gi;
          rankOf[d] = r;
        }
      });
    });
    const devices: DevicePlan[] = [];
    let ops = 0;
    const compact = compactGroups(dag, ctx.design.cluster, groupOps);
    for (let device = 0; device < total; device++) {
      const g = groupOf[device]!;
      if (g < 0) {
        devices.push({ device, group: -1, stages: [], paramBytes: 0, streams: [] });
        continue;
      }
      const rank = rankOf[device]!;
      if (compact && rank > 0) continue;
      ops += groupOps[g]!;
      const streams: StreamPlan[] = groupStreams[g]!.map((s) => {
        const spec = streamSpec.get(s.stream);
        const plan: StreamPlan = {
          stream: s.stream,
          instructions: rank === 0 ? s.instructions : withPeersOfRank(s.instructions, s.lane, rank),
        };
        if (spec?.priority !== undefined) plan.priority = spec.priority;
        if (spec?.smFraction !== undefined) plan.smFraction = spec.smFraction;
        return plan;
      });
      const blocks = held[g]!;
      const stages: number[] = [];
      let paramBytes = 0;
      for (const b of blocks) {
        const pp = dag.blocks[b]!.tags.PP;
        if (pp !== undefined && !stages.includes(pp)) stages.push(pp);
        paramBytes += dag.blocks[b]!.paramBytes;
      }
      const memory = trainingState(dag, g, blocks);
      const dp: DevicePlan = { device, group: g, stages, paramBytes, streams };
      dp.staticBytes = memory.params + memory.grads + memory.optimizer;
      dp.memory = memory;
      if (compact && groups[g]!.length > 1) dp.replicas = groups[g]!.slice(1);
      devices.push(dp);
    }
    ctx.planOps = ops;
    const plan: Plan = {
      format: PLAN_FORMAT,
      name: ctx.design.name,
      cluster: ctx.design.cluster,
      groups: groups.map((g) => [...g]),
      devices,
    };
    const totals = stepTotals(dag, dag.blocks[0]?.tokens ?? tokensPerMicrobatch(ctx.design.model));
    if (totals.tokens !== undefined) plan.tokensPerStep = totals.tokens;
    if (totals.flops !== undefined) plan.modelFlopsPerStep = totals.flops;
    ctx.plan = plan;
    return dag;

    /** The device of rank `rank` of a group runs the group's program with its own SEND/RECV peers. */
    function withPeersOfRank(instructions: Instruction[], lane: number, rank: number): Instruction[] {
      const out = instructions.slice();
      for (let k = 0; k < out.length; k++) {
        const ins = out[k]!;
        if (ins.op !== 'SEND' && ins.op !== 'RECV') continue;
        const n = nodes[laneUnits[laneOff[lane]! + k]!] as P2PNode;
        out[k] = p2pInstruction(n, ins.tags, ins.waits, groups[n.peerGroup]![rank]!);
      }
      return out;
    }
  },
};

const NO_WAITS: string[] = [];

/** The compute stream first: it is what timelines and metrics read first. */
function streamRank(a: string, b: string): number {
  return a === 'compute' ? -1 : b === 'compute' ? 1 : a.localeCompare(b);
}

function p2pInstruction(n: P2PNode, tags: Tags, waits: string[], peer: number): P2PInstruction {
  return {
    op: n.op,
    id: n.id,
    tags,
    waits,
    peer,
    bytes: n.bytes,
    transfer: n.transfer,
    provenance: n.provenance,
  };
}

/** FLOPs of a compute op where the model gives them (transformer models): B is BI + BW. */
function computeFlops(dag: Dag, n: ComputeNode): number | undefined {
  if (n.op === 'UPD') return undefined;
  const f = dag.blocks[n.block]?.flops;
  if (!f) return undefined;
  switch (n.op) {
    case 'F':
    case 'RECOMPUTE':
      return f.F;
    case 'B':
      return f.BI + f.BW;
    case 'BI':
      return f.BI;
    case 'BW':
      return f.BW;
  }
}

function computeMs(dag: Dag, n: ComputeNode, updMs: readonly number[]): number | undefined {
  if (n.op === 'UPD') return updMs[n.group] ?? 0;
  const c = dag.blocks[n.block]?.ms;
  if (!c) return undefined;
  switch (n.op) {
    case 'F':
    case 'RECOMPUTE':
      return c.F;
    case 'B':
      return c.BI + c.BW;
    case 'BI':
      return c.BI;
    case 'BW':
      return c.BW;
  }
}

/** Overlapped ops take FandB/(F+B) of their separate time: exactly FandB for one F and one B. */
function overlapMs(dag: Dag, ms: readonly number[], updMs: readonly number[]): number | undefined {
  let total = 0;
  for (const m of ms) {
    const n = dag.nodes[m] as ComputeNode;
    const c = dag.blocks[n.block]?.ms;
    if (!c) return undefined;
    const separate = c.F + c.BI + c.BW;
    const own = computeMs(dag, n, updMs) ?? 0;
    total += separate > 0 ? (own * c.FandB) / separate : 0;
  }
  return total;
}

function overlapId(dag: Dag, ms: readonly number[]): string {
  return `(${ms.map((m) => dag.nodes[m]!.id).join(';')})`;
}

/** Per group, the blocks its compute ops belong to, in order of first appearance. */
function heldBlocks(dag: Dag): number[][] {
  const B = dag.blocks.length;
  const held: number[][] = dag.groups.map(() => []);
  const mark = new Uint8Array(dag.groups.length * B);
  for (const n of dag.nodes) {
    if (n.kind !== 'compute' || n.block < 0 || n.group < 0) continue;
    const k = n.group * B + n.block;
    if (mark[k] === 0) {
      mark[k] = 1;
      held[n.group]!.push(n.block);
    }
  }
  return held;
}

/**
 * Tags of each node as filters see them: its block's tags, its split indices and its PASS. A
 * SEND shares the tags of the op whose output it carries, and a RECV those of its SEND, when
 * they are the same tags (same block, split indices and pass).
 */
function tagMaker(dag: Dag, inc: Adjacency): (i: number) => Tags {
  const names = dag.dims.map((d) => d.name);
  const nodes = dag.nodes;
  const efrom = dag.edges.from;
  const cache: (Tags | undefined)[] = new Array(nodes.length);
  // One template per (block, which split indices are set, pass) with every key in place: a copy
  // of it and a write per split index make the tags without adding a property.
  const templates: (Tags | undefined)[] = [];
  const PASSES = [undefined, 'F', 'B', 'BI', 'BW'];
  const make = (n: DagNode, pass: string | undefined): Tags => {
    let mask = 0;
    for (let d = 0; d < names.length; d++) if (n.dims[d]! >= 0) mask |= 1 << d;
    const p = PASSES.indexOf(pass);
    const key = ((n.block + 1) * (1 << names.length) + mask) * PASSES.length + Math.max(p, 0);
    let tpl = p < 0 ? undefined : templates[key];
    if (tpl === undefined) {
      tpl = n.block >= 0 ? { ...dag.blocks[n.block]!.tags } : {};
      for (let d = 0; d < names.length; d++) if (mask & (1 << d)) tpl[names[d]!] = 0;
      if (pass !== undefined) tpl.PASS = pass;
      if (p >= 0) templates[key] = tpl;
    }
    const tags = { ...tpl };
    for (let d = 0; d < names.length; d++) if (mask & (1 << d)) tags[names[d]!] = n.dims[d]!;
    return tags;
  };
  const passOf = (op: string) => (op === 'UPD' || op === 'RECOMPUTE' ? undefined : op);
  const sameAs = (n: P2PNode, s: DagNode): boolean =>
    s.block === n.block &&
    s.dims === n.dims &&
    (n.op === 'SEND'
      ? s.kind === 'compute' && s.op === n.pass
      : s.kind === 'p2p' && s.op === 'SEND' && s.transfer === n.transfer);
  const of = (i: number): Tags => {
    const hit = cache[i];
    if (hit !== undefined) return hit;
    const n = nodes[i]!;
    let tags: Tags | undefined;
    if (n.kind === 'compute') tags = make(n, passOf(n.op));
    else if (n.kind === 'p2p') {
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]! && tags === undefined; k++) {
        const s = efrom[inc.edge[k]!]!;
        if (sameAs(n, nodes[s]!)) tags = of(s);
      }
      tags ??= make(n, passOf(n.pass));
    } else tags = make(n, undefined);
    cache[i] = tags;
    return tags;
  };
  return of;
}
