/**
 * Lowers the ordered, partitioned DAG to `stagecraft/plan@1`: per device, per stream, the
 * instructions in order, each with the ids it waits for on other streams of its device. Members of
 * a device group run the same program; a SEND/RECV's peer is the device of the same rank in the
 * other group.
 */
import {
  type ComputeInstruction,
  type ComputeNode,
  type Dag,
  type DagNode,
  type DevicePlan,
  type Instruction,
  PLAN_FORMAT,
  type Plan,
  type StreamPlan,
} from '@stagecraft/ir';
import { inEdges } from '../adjacency.ts';
import { deviceCount } from '../cluster.ts';
import type { Pass } from '../pass.ts';
import { compactGroups } from './replicaLayout.ts';
import { stepTotals, tokensPerMicrobatch, trainingState } from './trainingState.ts';

export const lowerPlanPass: Pass = {
  name: 'lower-plan',
  run(dag, ctx) {
    const order = ctx.streamOrder!;
    const { rep, members } = order.units;
    const inc = inEdges(dag.nodes.length, dag.edges);
    const idOf = (i: number): string => {
      const r = rep[i]!;
      const ms = members.get(r);
      return ms ? overlapId(dag, ms) : dag.nodes[r]!.id;
    };
    const held = heldBlocks(dag);
    const updMs = updateCosts(dag, held);
    const tagsOf = tagMaker(dag);

    const compute = (n: ComputeNode): ComputeInstruction => {
      const ins: ComputeInstruction = {
        op: n.op,
        id: n.id,
        tags: tagsOf(n),
        waits: NO_WAITS,
        provenance: n.provenance,
      };
      const ms = computeMs(dag, n, updMs);
      if (ms !== undefined) ins.ms = ms;
      const flops = computeFlops(dag, n);
      if (flops !== undefined) ins.flops = flops;
      if (n.allocBytes > 0) ins.allocBytes = n.allocBytes;
      if (n.freeBytes > 0) ins.freeBytes = n.freeBytes;
      return ins;
    };
    /** Ids on other streams of the same group that node i must wait for. */
    const waitsOf = (i: number, into: string[]) => {
      const n = dag.nodes[i]!;
      for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
        const u = dag.edges.from[inc.edge[k]!]!;
        const nu = dag.nodes[u]!;
        if (nu.kind === 'control' || nu.group !== n.group || nu.stream === n.stream) continue;
        if (rep[u] === rep[i]) continue;
        const id = idOf(u);
        if (!into.includes(id)) into.push(id);
      }
    };

    // Per group: streams with instructions, peer filled in per device below.
    const groupStreams = order.groups.map((streams) => {
      const out: { stream: string; instructions: Instruction[] }[] = [];
      for (const [stream, list] of streams) {
        const instructions: Instruction[] = [];
        for (const i of list) {
          const n = dag.nodes[i]!;
          const ms = members.get(i);
          const waits: string[] = [];
          if (ms) {
            for (const m of ms) waitsOf(m, waits);
            const parts = ms.map((m) => compute(dag.nodes[m] as ComputeNode));
            const total = overlapMs(dag, ms, updMs);
            const ins: Instruction = {
              op: 'OVERLAP',
              id: overlapId(dag, ms),
              tags: {},
              waits,
              members: parts,
            };
            if (total !== undefined) ins.ms = total;
            instructions.push(ins);
            continue;
          }
          waitsOf(i, waits);
          instructions.push(lowerNode(n, waits.length > 0 ? waits : NO_WAITS, compute, tagsOf));
        }
        out.push({ stream, instructions });
      }
      // The compute stream first: it is what timelines and metrics read first.
      out.sort((a, b) =>
        a.stream === 'compute' ? -1 : b.stream === 'compute' ? 1 : a.stream.localeCompare(b.stream),
      );
      return out;
    });

    const streamSpec = new Map(dag.streams.map((s) => [s.name, s]));
    const groupOfDevice = new Map<number, number>();
    dag.groups.forEach((g, gi) => {
      for (const d of g) groupOfDevice.set(d, gi);
    });
    const devices: DevicePlan[] = [];
    const total = deviceCount(ctx.design.cluster);
    const compact = compactGroups(
      dag,
      ctx.design.cluster,
      groupStreams.map((ss) => ss.reduce((k, s) => k + s.instructions.length, 0)),
    );
    for (let device = 0; device < total; device++) {
      const g = groupOfDevice.get(device);
      if (g === undefined) {
        devices.push({ device, group: -1, stages: [], paramBytes: 0, streams: [] });
        continue;
      }
      const rank = dag.groups[g]!.indexOf(device);
      if (compact && rank > 0) continue;
      const streams: StreamPlan[] = groupStreams[g]!.map((s) => {
        const spec = streamSpec.get(s.stream);
        const plan: StreamPlan = {
          stream: s.stream,
          instructions: s.instructions.map((ins) =>
            ins.op === 'SEND' || ins.op === 'RECV' ? { ...ins, peer: dag.groups[ins.peer]![rank]! } : ins,
          ),
        };
        if (spec?.priority !== undefined) plan.priority = spec.priority;
        if (spec?.smFraction !== undefined) plan.smFraction = spec.smFraction;
        return plan;
      });
      const blocks = held[g]!;
      const stages = [
        ...new Set(
          [...blocks].map((b) => dag.blocks[b]!.tags.PP).filter((v): v is number => v !== undefined),
        ),
      ];
      let paramBytes = 0;
      for (const b of blocks) paramBytes += dag.blocks[b]!.paramBytes;
      const memory = trainingState(dag, g, blocks);
      const dp: DevicePlan = { device, group: g, stages, paramBytes, streams };
      dp.staticBytes = memory.params + memory.grads + memory.optimizer;
      dp.memory = memory;
      if (compact && dag.groups[g]!.length > 1) dp.replicas = dag.groups[g]!.slice(1);
      devices.push(dp);
    }
    const plan: Plan = {
      format: PLAN_FORMAT,
      name: ctx.design.name,
      cluster: ctx.design.cluster,
      groups: dag.groups.map((g) => [...g]),
      devices,
    };
    const totals = stepTotals(dag, dag.blocks[0]?.tokens ?? tokensPerMicrobatch(ctx.design.model));
    if (totals.tokens !== undefined) plan.tokensPerStep = totals.tokens;
    if (totals.flops !== undefined) plan.modelFlopsPerStep = totals.flops;
    ctx.plan = plan;
    return dag;
  },
};

const NO_WAITS: string[] = [];

/** SEND/RECV of a group's program carry the peer *group* in `peer`; each member device gets its peer device. */
function lowerNode(
  n: DagNode,
  waits: string[],
  compute: (n: ComputeNode) => ComputeInstruction,
  tagsOf: (n: DagNode) => Record<string, number | string>,
): Instruction {
  switch (n.kind) {
    case 'compute': {
      const ins = compute(n);
      ins.waits = waits;
      return ins;
    }
    case 'p2p':
      return {
        op: n.op,
        id: n.id,
        tags: tagsOf(n),
        waits,
        peer: n.peerGroup,
        bytes: n.bytes,
        transfer: n.transfer,
        provenance: n.provenance,
      };
    case 'collective':
      return {
        op: n.op,
        id: n.id,
        tags: tagsOf(n),
        waits,
        devices: n.devices as number[], // shared: a group's collectives name one array, which checks cache by identity
        bytes: n.bytes,
        collective: n.id,
        provenance: n.provenance,
      };
    case 'memory':
      return { op: n.op, id: n.id, tags: tagsOf(n), waits, bytes: n.bytes, provenance: n.provenance };
    case 'control':
      throw new Error('control nodes are not lowered');
  }
}

function computeMs(dag: Dag, n: ComputeNode, updMs: Map<number, number>): number | undefined {
  if (n.op === 'UPD') return updMs.get(n.group) ?? 0;
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

/** Overlapped ops take FandB/(F+B) of their separate time: exactly FandB for one F and one B. */
function overlapMs(dag: Dag, ms: readonly number[], updMs: Map<number, number>): number | undefined {
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

function heldBlocks(dag: Dag): Set<number>[] {
  const held = dag.groups.map(() => new Set<number>());
  for (const n of dag.nodes)
    if (n.kind === 'compute' && n.block >= 0 && n.group >= 0) held[n.group]!.add(n.block);
  return held;
}

function updateCosts(dag: Dag, held: Set<number>[]): Map<number, number> {
  const out = new Map<number, number>();
  held.forEach((blocks, g) => {
    let ms = 0;
    for (const b of blocks) ms += dag.blocks[b]!.ms?.UPD ?? 0;
    out.set(g, ms);
  });
  return out;
}

/**
 * Tags of each node as filters see them. Built from per-block templates with the split indices
 * and PASS added; a SEND/RECV shares the tags object of the transfer it carries.
 */
function tagMaker(dag: Dag): (n: DagNode) => Record<string, number | string> {
  const names = dag.dims.map((d) => d.name);
  const byTransfer = new Map<string, Record<string, number | string>>();
  const make = (n: DagNode, pass: string | undefined) => {
    const tags: Record<string, number | string> = n.block >= 0 ? { ...dag.blocks[n.block]!.tags } : {};
    for (let i = 0; i < names.length; i++) {
      const v = n.dims[i]!;
      if (v >= 0) tags[names[i]!] = v;
    }
    if (pass !== undefined) tags.PASS = pass;
    return tags;
  };
  return (n) => {
    if (n.kind === 'compute') return make(n, n.op === 'UPD' || n.op === 'RECOMPUTE' ? undefined : n.op);
    if (n.kind === 'p2p') {
      let t = byTransfer.get(n.transfer);
      if (!t)
        byTransfer.set(
          n.transfer,
          (t = make(n, n.pass === 'UPD' || n.pass === 'RECOMPUTE' ? undefined : n.pass)),
        );
      return t;
    }
    return make(n, undefined);
  };
}
