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
import { compactGroups } from './replicaLayout.ts';
import { streamOrderPass } from './streamOrder.ts';
import { computeCensus, tokensPerMicrobatch, trainingState } from './trainingState.ts';

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
    const census = computeCensus(dag, dag.blocks[0]?.tokens ?? tokensPerMicrobatch(ctx.design.model));
    const held = census.held;
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

    // Per group, its streams in plan order (the compute stream first), and its instructions (an
    // overlapped unit's members counted), known before any is built: they decide whether groups
    // are lowered once for all their devices.
    const groups = dag.groups;
    const sortedLanes = groupLanes.map((own) =>
      [...own].sort((a, b) => streamRank(lanes[a]!.stream, lanes[b]!.stream)),
    );
    const groupUnits = groupLanes.map((own) => {
      let n = 0;
      for (const lane of own) n += laneOff[lane + 1]! - laneOff[lane]!;
      return n;
    });
    const groupOps = [...groupUnits];
    for (const [r, ms] of members) if (laneOf[r]! >= 0) groupOps[laneGroup[laneOf[r]!]!]! += ms.length - 1;
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
    // The devices the plan lists, in order, and the index into plan.devices of each device number
    // (−1 for the replicas of a group lowered once).
    const listed: number[] = [];
    const planIndex = new Int32Array(total).fill(-1);
    for (let device = 0; device < total; device++)
      if (!(compact && groupOf[device]! >= 0 && rankOf[device]! > 0)) {
        planIndex[device] = listed.length;
        listed.push(device);
      }

    // The plan's columns (planColumns.ts), written in plan order as the instructions are built.
    const D = listed.length;
    let NU = 0;
    let SU = 0;
    for (const device of listed) {
      const g = groupOf[device]!;
      if (g >= 0) {
        NU += groupUnits[g]!;
        SU += sortedLanes[g]!.length;
      }
    }
    const deviceStreams = new Int32Array(D + 1);
    const streamStart = new Int32Array(SU + 1);
    const unitStream = new Int32Array(NU);
    const kind = new Uint8Array(NU);
    const waitOff = new Int32Array(NU + 1);
    let waitTgt = new Int32Array(Math.max(16, inc.node.length));
    const peerIndex = new Int32Array(NU).fill(-1);
    const transferKey = new Int32Array(NU).fill(-1);
    const rank = new Int32Array(NU);
    // Unit of each node in the plan, where its group was lowered.
    const unitOf = new Int32Array(N);
    let u = 0;
    let s = 0;
    let tw = 0;
    let columnsHold = true;
    const addWait = (t: number) => {
      if (tw === waitTgt.length) {
        const grown = new Int32Array(2 * tw);
        grown.set(waitTgt);
        waitTgt = grown;
      }
      waitTgt[tw++] = t;
    };

    // Ids on other lanes of the same group that node i (of unit `self`, on lane `lane`) waits for,
    // appended to the scratch list `found` (with their units in `foundUnit`); `seen` marks units
    // already listed for this unit.
    const seen = new Int32Array(N).fill(-1);
    const found: string[] = [];
    const foundUnit: number[] = [];
    let nf = 0;
    const waitsOf = (i: number, self: number, lane: number) => {
      const g = laneGroup[lane]!;
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
        const x = inc.node[k]!;
        const lx = laneOf[x]!;
        if (lx < 0 || lx === lane || laneGroup[lx] !== g) continue;
        const r = rep[x]!;
        if (r === self || seen[r] === self) continue;
        seen[r] = self;
        // A unit's representative outside the group would leave the wait unresolved: the plan
        // says so on validation, and the columns step aside.
        if (laneOf[r]! < 0 || laneGroup[laneOf[r]!] !== g) columnsHold = false;
        foundUnit[nf] = unitOf[r]!;
        found[nf++] = idOf(r);
      }
    };
    // The plan keeps every waits array: each is made at its exact size (an array grown by a push
    // reserves room for 16).
    const takeWaits = (empty: string[]): string[] => {
      for (let j = 0; j < nf; j++) addWait(foundUnit[j]!);
      // A counter, not found.length = 0, which would give the scratch list's storage back.
      const out = nf === 0 ? empty : nf === 1 ? [found[0]!] : found.slice(0, nf);
      nf = 0;
      return out;
    };

    /**
     * Group g's instructions, with the SEND/RECV peers of the group's first device, and its
     * columns at the current place, with the peers (`peerOf`) of the device plan written there.
     */
    const lowerGroup = (g: number, peerOf: (group: number) => number) => {
      const sorted = sortedLanes[g]!;
      let next = u;
      for (const lane of sorted)
        for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++) unitOf[laneUnits[k]!] = next++;
      return sorted.map((lane) => {
        streamStart[s] = u;
        // One instruction per unit of the lane (partition gives control nodes no lane).
        const instructions = new Array<Instruction>(laneOff[lane + 1]! - laneOff[lane]!);
        let w = 0;
        for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++, u++) {
          const i = laneUnits[k]!;
          unitStream[u] = s;
          waitOff[u] = tw;
          rank[u] = laneRank[k]!;
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
            const unitMs = overlapMs(dag, ms, updMs);
            if (unitMs !== undefined) ins.ms = unitMs;
            instructions[w++] = ins;
            kind[u] = UNIT_OVERLAP;
            continue;
          }
          waitsOf(i, i, lane);
          const waits = takeWaits(NO_WAITS);
          const n = nodes[i]!;
          switch (n.kind) {
            case 'compute':
              instructions[w++] = compute(n, i, waits);
              kind[u] = UNIT_COMPUTE;
              break;
            case 'p2p':
              instructions[w++] = p2pInstruction(n, tags(i), waits, groups[n.peerGroup]![0]!);
              kind[u] = n.op === 'SEND' ? UNIT_SEND : UNIT_RECV;
              peerIndex[u] = peerOf(n.peerGroup);
              transferKey[u] = n.op === 'SEND' ? i : sendOfRecv(i);
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
              kind[u] = UNIT_COLLECTIVE;
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
              kind[u] = UNIT_MEMORY;
              break;
            case 'control':
              throw new Error(`lower-plan: control node ${n.id} has a lane`);
          }
        }
        s++;
        return { lane, stream: lanes[lane]!.stream, instructions };
      });
    };

    /** The columns of group g lowered at device plan `at`, again at the current place. */
    const repeatGroup = (g: number, at: number, peerOf: (group: number) => number) => {
      const from = streamStart[deviceStreams[at]!]!;
      const shift = u - from;
      const s0 = deviceStreams[at]!;
      const s1 = s;
      // The segment copied may end right here: its last unit's waits end where the next begin.
      waitOff[u] = tw;
      for (const lane of sortedLanes[g]!) {
        streamStart[s] = u;
        for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++, u++) {
          const x = u - shift;
          unitStream[u] = unitStream[x]! - s0 + s1;
          kind[u] = kind[x]!;
          rank[u] = rank[x]!;
          waitOff[u] = tw;
          for (let j = waitOff[x]!; j < waitOff[x + 1]!; j++) addWait(waitTgt[j]! + shift);
          if (kind[x] === UNIT_SEND || kind[x] === UNIT_RECV) {
            peerIndex[u] = peerOf((nodes[laneUnits[k]!] as P2PNode).peerGroup);
            transferKey[u] = transferKey[x]!;
          }
        }
        s++;
      }
    };

    const groupStreams: { lane: number; stream: string; instructions: Instruction[] }[][] = [];
    const loweredAt = new Int32Array(groups.length).fill(-1);
    for (let p = 0; p < D; p++) {
      deviceStreams[p] = s;
      const device = listed[p]!;
      const g = groupOf[device]!;
      if (g < 0) continue;
      const r = rankOf[device]!;
      const peerOf = (pg: number) => {
        const peer = groups[pg]![r];
        return peer !== undefined && peer < total ? planIndex[peer]! : -1;
      };
      if (loweredAt[g]! >= 0) repeatGroup(g, loweredAt[g]!, peerOf);
      else {
        loweredAt[g] = p;
        groupStreams[g] = lowerGroup(g, peerOf);
      }
    }
    deviceStreams[D] = s;
    streamStart[SU] = u;
    waitOff[NU] = tw;

    const streamSpec = new Map(dag.streams.map((sp) => [sp.name, sp]));
    const devices: DevicePlan[] = [];
    let ops = 0;
    for (const device of listed) {
      const g = groupOf[device]!;
      if (g < 0) {
        devices.push({ device, group: -1, stages: [], paramBytes: 0, streams: [] });
        continue;
      }
      const r = rankOf[device]!;
      ops += groupOps[g]!;
      const streams: StreamPlan[] = groupStreams[g]!.map((st) => {
        const spec = streamSpec.get(st.stream);
        const plan: StreamPlan = {
          stream: st.stream,
          instructions: r === 0 ? st.instructions : withPeersOfRank(st.instructions, st.lane, r),
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
    if (census.tokens !== undefined) plan.tokensPerStep = census.tokens;
    if (census.flops !== undefined) plan.modelFlopsPerStep = census.flops;
    ctx.plan = plan;
    ctx.planColumns = columnsHold
      ? {
          plan,
          columns: {
            N: NU,
            S: SU,
            D,
            deviceStreams,
            streamStart,
            unitStream,
            kind,
            waitOff,
            waitTgt: waitTgt.subarray(0, tw),
            peerIndex,
            transferKey,
            rank,
          },
        }
      : undefined;
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
