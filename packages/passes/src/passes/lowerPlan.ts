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
 *
 * Beside the plan it leaves the plan's columns (planColumns.ts): the waits it resolved, as unit
 * indices, and what validation needs besides, so that nothing downstream resolves an id again.
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
import { predecessors } from '../adjacency.ts';
import { deviceCount } from '../cluster.ts';
import type { Pass } from '../pass.ts';
import {
  UNIT_COLLECTIVE,
  UNIT_COMPUTE,
  UNIT_MEMORY,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
} from '../planColumns.ts';
import { type GroupPrograms, groupColumns, type Placement } from './groupColumns.ts';
import { compactGroups } from './replicaLayout.ts';
import { streamOrderPass } from './streamOrder.ts';
import { stepTotals, tokensPerMicrobatch, trainingState } from './trainingState.ts';

type Tags = Record<string, number | string>;

export const lowerPlanPass: Pass = {
  name: 'lower-plan',
  run(dag, ctx) {
    // A pass between stream-order and here that changed the DAG would leave the lanes stale.
    if (ctx.streamOrder?.dag !== dag) streamOrderPass.run(dag, ctx);
    const { laneOf, lanes, groupLanes } = ctx.partition!;
    const { units, laneOff, laneUnits, laneRank } = ctx.streamOrder!;
    const { rep, members } = units;
    const nodes = dag.nodes;
    const N = nodes.length;
    const inc = predecessors(N, dag.edges);
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
    // appended to the scratch list `found` (with their units' local numbers in `foundLocal`);
    // `seen` marks units already listed for this unit.
    const seen = new Int32Array(N).fill(-1);
    const found: string[] = [];
    const foundLocal: number[] = [];
    let nf = 0;
    const waitsOf = (i: number, self: number, lane: number) => {
      const g = laneGroup[lane]!;
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
        const u = inc.node[k]!;
        const lu = laneOf[u]!;
        if (lu < 0 || lu === lane || laneGroup[lu] !== g) continue;
        const r = rep[u]!;
        if (r === self || seen[r] === self) continue;
        seen[r] = self;
        // A unit's representative outside the group would leave the wait unresolved: the plan
        // says so on validation, and the columns step aside.
        if (laneOf[r]! < 0 || laneGroup[laneOf[r]!] !== g) columnsHold = false;
        foundLocal[nf] = localOf[r]!;
        found[nf++] = idOf(r);
      }
    };
    // The plan keeps every waits array: each is made at its exact size (an array grown by a push
    // reserves room for 16).
    const takeWaits = (empty: string[]): string[] => {
      for (let j = 0; j < nf; j++) tWait[tw++] = foundLocal[j]!;
      // A counter, not found.length = 0, which would give the scratch list's storage back.
      const out = nf === 0 ? empty : nf === 1 ? [found[0]!] : found.slice(0, nf);
      nf = 0;
      return out;
    };

    // The group's program as columns, by unit number within the group (streams in plan order):
    // kind, waits (CSR of unit numbers within the group), peer group and transfer of SEND/RECVs.
    const T = laneOff[lanes.length]!;
    const localOf = new Int32Array(N);
    const tKind = new Uint8Array(T);
    const tWaitOff = new Int32Array(T + 1);
    const tWait = new Int32Array(inc.node.length);
    const tPeerGroup = new Int32Array(T).fill(-1);
    const tTransfer = new Int32Array(T).fill(-1);
    const tRank = new Int32Array(T);
    const groupBase = new Int32Array(dag.groups.length + 1);
    const streamOff: Int32Array[] = [];
    let tw = 0;
    let t = 0;
    let columnsHold = true;

    // Per group: its lanes' instructions, with SEND/RECV peers of the group's first device.
    const groups = dag.groups;
    const groupOps = new Array<number>(groups.length).fill(0);
    const groupStreams = groupLanes.map((own, g) => {
      const sorted = [...own].sort((a, b) => streamRank(lanes[a]!.stream, lanes[b]!.stream));
      groupBase[g] = t;
      const off = new Int32Array(sorted.length + 1);
      let local = 0;
      sorted.forEach((lane, k) => {
        off[k] = local;
        for (let x = laneOff[lane]!; x < laneOff[lane + 1]!; x++) localOf[laneUnits[x]!] = local++;
      });
      off[sorted.length] = local;
      streamOff[g] = off;
      const streams = sorted.map((lane) => {
        // One instruction per unit of the lane (partition gives control nodes no lane).
        const instructions = new Array<Instruction>(laneOff[lane + 1]! - laneOff[lane]!);
        let w = 0;
        for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++, t++) {
          const i = laneUnits[k]!;
          tWaitOff[t] = tw;
          tRank[t] = laneRank[k]!;
          if (inOverlap[i] === 1) {
            const ms = members.get(i)!;
            for (const m of ms) waitsOf(m, i, lane);
            const waits = takeWaits([]);
            const ins: Instruction = {
              op: 'OVERLAP',
              id: overlapIds.get(i)!,
              tags: {},
              waits,
              members: ms.map((m) => compute(nodes[m] as ComputeNode, m, NO_WAITS)),
            };
            const total = overlapMs(dag, ms, updMs);
            if (total !== undefined) ins.ms = total;
            instructions[w++] = ins;
            tKind[t] = UNIT_OVERLAP;
            groupOps[g]! += ms.length - 1;
            continue;
          }
          waitsOf(i, i, lane);
          const waits = takeWaits(NO_WAITS);
          const n = nodes[i]!;
          switch (n.kind) {
            case 'compute':
              instructions[w++] = compute(n, i, waits);
              tKind[t] = UNIT_COMPUTE;
              break;
            case 'p2p':
              instructions[w++] = p2pInstruction(n, tags(i), waits, groups[n.peerGroup]![0]!);
              tKind[t] = n.op === 'SEND' ? UNIT_SEND : UNIT_RECV;
              tPeerGroup[t] = n.peerGroup;
              tTransfer[t] = n.op === 'SEND' ? i : sendOfRecv(i);
              break;
            case 'collective':
              instructions[w++] = {
                op: n.op,
                id: n.id,
                tags: tags(i),
                waits,
                // Shared: a group's collectives name one array, which checks cache by identity.
                devices: n.devices as number[],
                bytes: n.bytes,
                collective: n.id,
                provenance: n.provenance,
              };
              tKind[t] = UNIT_COLLECTIVE;
              break;
            case 'memory':
              instructions[w++] = {
                op: n.op,
                id: n.id,
                tags: tags(i),
                waits,
                bytes: n.bytes,
                provenance: n.provenance,
              };
              tKind[t] = UNIT_MEMORY;
              break;
            case 'control':
              throw new Error(`lower-plan: control node ${n.id} has a lane`);
          }
        }
        groupOps[g]! += instructions.length;
        return { lane, stream: lanes[lane]!.stream, instructions };
      });
      return streams;
    });
    tWaitOff[T] = tw;
    groupBase[groups.length] = t;

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
    const compact = compactGroups(dag, ctx.design.cluster, groupOps);
    // Index into plan.devices of each device number the plan lists (−1 for the replicas it does not).
    const planIndex = new Int32Array(total).fill(-1);
    let listed = 0;
    for (let device = 0; device < total; device++)
      if (!(compact && groupOf[device]! >= 0 && rankOf[device]! > 0)) planIndex[device] = listed++;
    const devices: DevicePlan[] = [];
    let ops = 0;
    const placements: Placement[] = [];
    for (let device = 0; device < total; device++) {
      const g = groupOf[device]!;
      if (g < 0) {
        devices.push({ device, group: -1, stages: [], paramBytes: 0, streams: [] });
        placements.push({ group: -1, rank: 0 });
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
      placements.push({ group: g, rank });
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
    if (columnsHold) {
      const programs: GroupPrograms = {
        base: groupBase,
        streamOff,
        kind: tKind,
        waitOff: tWaitOff,
        wait: tWait,
        peerGroup: tPeerGroup,
        transferKey: tTransfer,
        rank: tRank,
      };
      const peerIndexOf = (pg: number, rank: number) => {
        const peer = groups[pg]![rank];
        return peer !== undefined && peer < total ? planIndex[peer]! : -1;
      };
      ctx.planColumns = { plan, columns: groupColumns(programs, placements, peerIndexOf) };
    } else ctx.planColumns = undefined;
    return dag;

    /** The SEND a RECV receives from: its predecessor with the same transfer (−1 − i if none). */
    function sendOfRecv(i: number): number {
      const transfer = (nodes[i] as P2PNode).transfer;
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
        const s = nodes[inc.node[k]!]!;
        if (s.kind === 'p2p' && s.op === 'SEND' && s.transfer === transfer) return inc.node[k]!;
      }
      return -1 - i;
    }

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
function tagMaker(dag: Dag, inc: ReturnType<typeof predecessors>): (i: number) => Tags {
  const names = dag.dims.map((d) => d.name);
  const nodes = dag.nodes;
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
        const s = inc.node[k]!;
        if (sameAs(n, nodes[s]!)) tags = of(s);
      }
      tags ??= make(n, passOf(n.pass));
    } else tags = make(n, undefined);
    cache[i] = tags;
    return tags;
  };
  return of;
}
