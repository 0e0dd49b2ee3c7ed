/**
 * Lowers the ordered, partitioned DAG to `stagecraft/plan@2`: per device, per stream, the
 * instructions in order, each with the ids it waits for on other streams of its device. Members of
 * a device group run the same program; a SEND/RECV's peer is the device of the same rank in the
 * other group.
 *
 * Lowering writes the plan's columns (planColumns.ts): per unit (an instruction; an overlapped
 * group of ops counts once) its stream, kind, waits as unit indices, peers, transfer, cost fields
 * and DAG node. Validation and the simulator read only those, through the plan's layout
 * (layoutFromColumns.ts), which the plan then carries (compiledLayout.ts). The plan object's instructions
 * are made from the columns and the DAG when first read (planInstructions.ts), so that a compile
 * nobody inspects costs no object per instruction.
 *
 * Everything runs on node indices: lanes from `partition`, their order from `stream-order`, waits
 * from the in-edges.
 */
import {
  type ArraySource,
  attachCompiledLayout,
  COST_STRIDE,
  CompiledLayout,
  type Dag,
  type Design,
  type DevicePlan,
  deviceCount,
  lazyStream,
  type NodeTable,
  OP_SEND,
  OP_UPD,
  type OpKernels,
  PLAN_FORMAT,
  PLAN_FORMAT_MESHES,
  type Plan,
  type PlanColumns,
  type StreamPlan,
  subgroupsOf,
  tableOf,
  transferOf,
  UNIT_COLLECTIVE,
  UNIT_OVERLAP,
  UNIT_RECV,
  UNIT_SEND,
  type UnitCosts,
} from '@stagecraft/ir';
import { predecessors } from '../dag/adjacency.ts';
import type { Units } from '../dag/topo.ts';
import type { Pass, PassContext } from '../driver/pass.ts';
import { CollectiveMembers } from './collectiveMembers.ts';
import { blockOpKernels, opFlops, opMs, overlapMs, PlanInstructions } from './planInstructions.ts';
import { compactGroups } from './replicaLayout.ts';
import { lazyRuntimeModel, runtimeBatch } from './runtimeModel.ts';
import { computeCensus, microbatchTokens, trainingState } from './trainingState.ts';
import { unitKindOfOp } from './unitKindOfOp.ts';

type Partition = NonNullable<PassContext['partition']>;
type StreamOrder = NonNullable<PassContext['streamOrder']>;
type Census = ReturnType<typeof computeCensus>;

export const lowerPlanPass: Pass = {
  name: 'lower-plan',
  // The plan carries the design's name.
  reads: ['name', 'partition', 'streamOrder'],
  writes: ['plan', 'planOps', 'planColumns'],
  run(dag, ctx) {
    const order = ctx.streamOrder;
    // The pipeline runs stream-order right before this pass: lanes of another DAG are a bug there.
    if (order?.dag !== dag) throw new Error('lower-plan: the stream order is not of its input DAG');
    const t = tableOf(dag);
    const census = computeCensus(dag, microbatchTokens(dag, ctx.design.model));
    const updMs = census.held.map((blocks) => {
      let ms = 0;
      for (const b of blocks) ms += dag.blocks[b]!.ms?.UPD ?? 0;
      return ms;
    });
    const shapes = groupShapes(ctx.partition!, order);
    const placement = placeDevices(dag, ctx.design.cluster, shapes.groupOps);
    const w = writeColumns(dag, t, ctx, order, shapes, placement, updMs);
    const { plan, ops } = assemblePlan(dag, ctx, census, shapes, placement, w, updMs);
    ctx.planOps = ops;
    ctx.plan = plan;
    ctx.planColumns = w.columnsHold ? { plan, columns: columnsOf(dag, t, w, updMs) } : undefined;
    return dag;
  },
};

/**
 * Per group, its streams in plan order (the compute stream first), and its instructions (an
 * overlapped unit's members counted), known before any is built: they decide whether groups are
 * lowered once for all their devices.
 */
interface GroupShapes {
  /** The device group of each lane. */
  readonly laneGroup: Int32Array;
  readonly sortedLanes: readonly (readonly number[])[];
  /** Units per group (an overlapped unit counts once). */
  readonly groupUnits: readonly number[];
  /** Instructions per group (an overlapped unit's members counted). */
  readonly groupOps: readonly number[];
}

function groupShapes({ laneOf, lanes, groupLanes }: Partition, order: StreamOrder): GroupShapes {
  const { laneOff } = order;
  const laneGroup = new Int32Array(lanes.length);
  for (let l = 0; l < lanes.length; l++) laneGroup[l] = lanes[l]!.group;
  const sortedLanes = groupLanes.map((own) =>
    [...own].sort((a, b) => streamRank(lanes[a]!.stream, lanes[b]!.stream)),
  );
  const groupUnits = groupLanes.map((own) => {
    let n = 0;
    for (const lane of own) n += laneOff[lane + 1]! - laneOff[lane]!;
    return n;
  });
  const groupOps = [...groupUnits];
  for (const [r, ms] of order.units.members)
    if (laneOf[r]! >= 0) {
      const g = laneGroup[laneOf[r]!]!;
      groupOps[g]! += ms.length - 1;
    }
  return { laneGroup, sortedLanes, groupUnits, groupOps };
}

/** Where each device sits: its group and rank there, and whether the plan lists it. */
interface Placement {
  /** Devices of the cluster. */
  readonly total: number;
  /** Device group of each device (−1: none) and its rank in that group. */
  readonly groupOf: Int32Array;
  readonly rankOf: Int32Array;
  /** Whether each group is lowered once for all its members (replicaLayout.ts). */
  readonly compact: boolean;
  /** The devices the plan lists, in order. */
  readonly listed: readonly number[];
  /** The index into plan.devices of each device number (−1 for the replicas of a group lowered once). */
  readonly planIndex: Int32Array;
}

function placeDevices(dag: Dag, cluster: Design['cluster'], groupOps: readonly number[]): Placement {
  const total = deviceCount(cluster);
  const groupOf = new Int32Array(total).fill(-1);
  const rankOf = new Int32Array(total);
  dag.groups.forEach((g, gi) => {
    g.forEach((d, r) => {
      if (d < total) {
        groupOf[d] = gi;
        rankOf[d] = r;
      }
    });
  });
  const compact = compactGroups(dag, cluster, groupOps);
  const listed: number[] = [];
  const planIndex = new Int32Array(total).fill(-1);
  for (let device = 0; device < total; device++)
    if (!(compact && groupOf[device]! >= 0 && rankOf[device]! > 0)) {
      planIndex[device] = listed.length;
      listed.push(device);
    }
  return { total, groupOf, rankOf, compact, listed, planIndex };
}

/** The plan's columns, in plan order: each group lowered at its first device, then repeated. */
function writeColumns(
  dag: Dag,
  t: NodeTable,
  ctx: PassContext,
  order: StreamOrder,
  { laneGroup, sortedLanes, groupUnits }: GroupShapes,
  { total, groupOf, rankOf, listed, planIndex }: Placement,
  updMs: readonly number[],
): ColumnWriter {
  const { laneOff, laneUnits, laneRank } = order;
  const groups = dag.groups;
  const inc =
    order.predecessors.lentFrom === ctx.scratch
      ? order.predecessors.lists
      : predecessors(t.length, dag.edges, ctx.scratch);
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
  // A collective across groups is one node per group: each unit names the first (its key).
  const jointKey = new Map<number, number>();
  for (const nodes of dag.jointCollectives ?? []) for (const v of nodes.slice(1)) jointKey.set(v, nodes[0]!);
  const w = new ColumnWriter(dag, t, inc, ctx.partition!.laneOf, laneGroup, order.units, {
    NU,
    SU,
    D,
    scratch: ctx.scratch,
    jointKey,
  });
  const peers = new Int32Array(groups.length);
  for (let p = 0; p < D; p++) {
    w.deviceStreams[p] = w.s;
    const device = listed[p]!;
    const g = groupOf[device]!;
    if (g < 0) continue;
    // The plan index of the device of this one's rank in every peer group.
    const r = rankOf[device]!;
    for (let pg = 0; pg < groups.length; pg++) {
      const peer = groups[pg]![r];
      peers[pg] = peer !== undefined && peer < total ? planIndex[peer]! : -1;
    }
    const lanesOfGroup = sortedLanes[g]!;
    if (w.loweredAt[g]! >= 0) w.repeatGroup(lanesOfGroup, laneOff, w.loweredAt[g]!, peers, r);
    else {
      w.loweredAt[g] = p;
      w.lowerGroup(lanesOfGroup, laneOff, laneUnits, laneRank, peers, updMs, r);
    }
  }
  w.deviceStreams[D] = w.s;
  w.streamStart[SU] = w.u;
  w.waitOff[NU] = w.tw;
  return w;
}

/** The plan object: its devices, each stream made from the columns when first read, and its facts. */
function assemblePlan(
  dag: Dag,
  { design, partition, streamOrder }: PassContext,
  census: Census,
  { sortedLanes, groupOps }: GroupShapes,
  { groupOf, rankOf, compact, listed }: Placement,
  w: ColumnWriter,
  updMs: readonly number[],
): { plan: Plan; ops: number } {
  const groups = dag.groups;
  const instructions = new PlanInstructions({
    dag,
    streamStart: w.streamStart,
    unitNode: w.unitNode,
    waitOff: w.waitOff,
    waitTgt: w.waitTgt,
    outsideWaits: w.outsideWaits,
    members: streamOrder!.units.members,
    updMs,
  });
  // The plan's link to the layout validation will prove on the columns, which its streams drop
  // when their instructions are first read (compiledLayout.ts).
  const compiled = new CompiledLayout();
  const streamSpec = new Map(dag.streams.map((sp) => [sp.name, sp]));
  const lanes = partition!.lanes;
  const planDevices: DevicePlan[] = [];
  let ops = 0;
  for (const device of listed) {
    const g = groupOf[device]!;
    if (g < 0) {
      planDevices.push({ device, group: -1, stages: [], paramBytes: 0, streams: [] });
      continue;
    }
    const r = rankOf[device]!;
    ops += groupOps[g]!;
    // The group's program is made once, from its first lowering (its member of rank 0).
    const first = w.deviceStreams[w.loweredAt[g]!]!;
    const streams: StreamPlan[] = sortedLanes[g]!.map((lane, k) => {
      const name = lanes[lane]!.stream;
      return lazyStream(
        name,
        { program: instructions, stream: first + k, rank: r, compiled },
        streamSpec.get(name),
      );
    });
    const blocks = census.held[g]!;
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
    planDevices.push(dp);
  }
  const meshes = dag.meshes;
  const plan: Plan = meshes
    ? {
        format: PLAN_FORMAT_MESHES,
        name: design.name,
        cluster: design.cluster,
        groups: groups.map((g) => [...g]),
        meshes: meshes.map((m) => (m ? { axes: [...m.axes], shape: [...m.shape] } : null)),
        devices: planDevices,
      }
    : {
        format: PLAN_FORMAT,
        name: design.name,
        cluster: design.cluster,
        groups: groups.map((g) => [...g]),
        devices: planDevices,
      };
  if (census.tokens !== undefined) plan.tokensPerStep = census.tokens;
  if (census.flops !== undefined) plan.modelFlopsPerStep = census.flops;
  lazyRuntimeModel(plan, dag);
  plan.batch = runtimeBatch(dag, design.model);
  // Over a mesh axis, each sub-group along it splits the blocks on its own.
  const memberSets = (r: { group: number; mask?: number }) => {
    const mesh = meshes?.[r.group];
    return r.mask === undefined || !mesh
      ? [[...groups[r.group]!]]
      : subgroupsOf(mesh, r.mask).map((ranks) => ranks.map((k) => groups[r.group]![k]!));
  };
  if (dag.tensorParallel?.length)
    plan.tensorParallel = dag.tensorParallel.flatMap((r) =>
      memberSets(r).map((devices) => ({ devices, blocks: [...r.blocks] })),
    );
  if (dag.contextParallel?.length)
    plan.contextParallel = dag.contextParallel.flatMap((r) =>
      memberSets(r).map((devices) => ({ devices, blocks: [...r.blocks], form: r.form })),
    );
  attachCompiledLayout(plan, compiled);
  return { plan, ops };
}

/** The columns validation and the simulator read, once every wait stayed within its group. */
function columnsOf(dag: Dag, t: NodeTable, w: ColumnWriter, updMs: readonly number[]): PlanColumns {
  return {
    N: w.unitStream.length,
    S: w.streamStart.length - 1,
    D: w.deviceStreams.length - 1,
    deviceStreams: w.deviceStreams,
    streamStart: w.streamStart,
    unitStream: w.unitStream,
    kind: w.kind,
    waitOff: w.waitOff,
    waitTgt: w.waitTgt.subarray(0, w.tw),
    peerIndex: w.peerIndex,
    transferKey: w.transferKey,
    rank: w.rank,
    node: w.unitNode,
    costs: unitCosts(dag, t, updMs),
    overlaps: w.overlaps,
    devices: w.devices,
    subgroup: w.subgroup,
  };
}

/**
 * Writes the plan's columns (planColumns.ts) group by group, in plan order. A class rather than
 * closures made per lowering: its methods stay one call target across compiles, which keeps the
 * JIT from specialising them anew each time.
 */
class ColumnWriter {
  readonly deviceStreams: Int32Array;
  readonly streamStart: Int32Array;
  readonly unitStream: Int32Array;
  readonly kind: Uint8Array;
  readonly waitOff: Int32Array;
  waitTgt: Int32Array;
  /**
   * Waits on units outside the waiting unit's group, by wait index: the node waited for. Such a
   * wait has no unit here (the plan is then invalid, and validation says why); every other wait
   * names its node through the unit (`unitNode[waitTgt[j]]`).
   */
  readonly outsideWaits = new Map<number, number>();
  readonly peerIndex: Int32Array;
  readonly transferKey: Int32Array;
  readonly rank: Float64Array;
  readonly unitNode: Int32Array;
  readonly overlaps = new Map<number, { members: readonly number[]; ms: number }>();
  readonly devices = new Map<number, readonly number[]>();
  /** Collective units over mesh axes: their sub-group's index. */
  readonly subgroup = new Map<number, number>();
  private readonly collectiveMembers: CollectiveMembers;
  /** Unit of each node in the plan, where its group was first lowered. */
  private readonly unitOf: Int32Array;
  /** The node naming each node of a collective across groups (other than the first). */
  private readonly jointKey: ReadonlyMap<number, number>;
  /** The unit whose waits list each node's unit already. */
  private readonly seen: Int32Array;
  /** Next unit, next global stream, next wait. */
  u = 0;
  s = 0;
  tw = 0;
  /** False once a wait names a unit outside its group: the plan's validation says so, not the columns. */
  columnsHold = true;
  /** The device plan where each group was first lowered (−1: not yet). */
  readonly loweredAt: Int32Array;

  constructor(
    private readonly dag: Dag,
    private readonly t: NodeTable,
    private readonly inc: { readonly offset: Int32Array; readonly node: Int32Array },
    private readonly laneOf: Int32Array,
    private readonly laneGroup: Int32Array,
    private readonly units: Units,
    {
      NU,
      SU,
      D,
      scratch,
      jointKey,
    }: { NU: number; SU: number; D: number; scratch: ArraySource; jointKey: ReadonlyMap<number, number> },
  ) {
    this.jointKey = jointKey;
    this.loweredAt = new Int32Array(dag.groups.length).fill(-1);
    this.collectiveMembers = new CollectiveMembers(dag, t);
    this.deviceStreams = new Int32Array(D + 1);
    this.streamStart = new Int32Array(SU + 1);
    this.unitStream = new Int32Array(NU);
    this.kind = new Uint8Array(NU);
    this.waitOff = new Int32Array(NU + 1);
    this.waitTgt = new Int32Array(Math.max(16, inc.node.length));
    this.peerIndex = new Int32Array(NU).fill(-1);
    this.transferKey = new Int32Array(NU).fill(-1);
    this.rank = new Float64Array(NU);
    this.unitNode = new Int32Array(NU);
    this.unitOf = scratch.int32(t.length);
    this.seen = scratch.int32(t.length, -1);
  }

  private addWait(unit: number): void {
    if (this.tw === this.waitTgt.length) {
      const grown = new Int32Array(2 * this.tw);
      grown.set(this.waitTgt);
      this.waitTgt = grown;
    }
    this.waitTgt[this.tw++] = unit;
  }

  /** The units on other lanes of the same group that node i (of unit `self`, on `lane`) waits for. */
  private waitsOf(i: number, self: number, lane: number): void {
    const { inc, laneOf, laneGroup, seen } = this;
    const rep = this.units.rep;
    // Without overlap slots every node is its own unit: no lookups of its representative.
    const single = this.units.members.size === 0;
    const g = laneGroup[lane]!;
    for (let k = inc.offset[i]!, end = inc.offset[i + 1]!; k < end; k++) {
      const x = inc.node[k]!;
      const lx = laneOf[x]!;
      if (lx < 0 || lx === lane || laneGroup[lx] !== g) continue;
      const r = single ? x : rep[x]!;
      if (r === self || seen[r] === self) continue;
      seen[r] = self;
      // A unit's representative outside the group would leave the wait unresolved: the plan
      // says so on validation, and the columns step aside. (x itself is in the group.)
      if (r !== x && (laneOf[r]! < 0 || laneGroup[laneOf[r]!] !== g)) {
        this.columnsHold = false;
        this.outsideWaits.set(this.tw, r);
      }
      this.addWait(this.unitOf[r]!);
    }
  }

  /** A group's columns at the current place; `peers`: plan index of each peer group's device of this rank. */
  lowerGroup(
    sorted: readonly number[],
    laneOff: Int32Array,
    laneUnits: Int32Array,
    laneRank: Float64Array,
    peers: Int32Array,
    updMs: readonly number[],
    rank: number,
  ): void {
    const { t, unitOf, kind } = this;
    const members = this.units.members;
    let next = this.u;
    for (let l = 0; l < sorted.length; l++)
      for (let k = laneOff[sorted[l]!]!; k < laneOff[sorted[l]! + 1]!; k++) unitOf[laneUnits[k]!] = next++;
    const anyOverlap = members.size > 0;
    for (let l = 0; l < sorted.length; l++) {
      const lane = sorted[l]!;
      this.streamStart[this.s] = this.u;
      for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++) {
        const u = this.u++;
        const i = laneUnits[k]!;
        this.unitStream[u] = this.s;
        this.waitOff[u] = this.tw;
        this.rank[u] = laneRank[k]!;
        this.unitNode[u] = i;
        const ovl = anyOverlap ? members.get(i) : undefined;
        if (ovl !== undefined) {
          for (const m of ovl) this.waitsOf(m, i, lane);
          kind[u] = UNIT_OVERLAP;
          this.overlaps.set(u, { members: ovl, ms: overlapMs(this.dag, t, ovl, updMs) ?? Number.NaN });
          continue;
        }
        this.waitsOf(i, i, lane);
        const uk = unitKindOfOp(t.op[i]!);
        if (uk < 0) throw new Error(`lower-plan: control node ${i} has a lane`);
        kind[u] = uk;
        if (uk === UNIT_SEND || uk === UNIT_RECV) {
          this.peerIndex[u] = peers[t.peer[i]!]!;
          this.transferKey[u] = uk === UNIT_SEND ? i : this.sendOfRecv(i);
        } else if (uk === UNIT_COLLECTIVE) {
          this.setMembers(u, i, rank);
          const key = this.jointKey.get(i);
          if (key !== undefined) this.unitNode[u] = key;
        }
      }
      this.s++;
    }
  }

  /** A collective unit's devices as the member of `rank` issues node i: its group, or its sub-group. */
  private setMembers(u: number, i: number, rank: number): void {
    const m = this.collectiveMembers.of(i, rank);
    this.devices.set(u, m.devices);
    if (m.index >= 0) this.subgroup.set(u, m.index);
  }

  /** The columns of a group lowered at device plan `at`, again at the current place (its member of `rank`). */
  repeatGroup(
    sorted: readonly number[],
    laneOff: Int32Array,
    at: number,
    peers: Int32Array,
    rank: number,
  ): void {
    const { kind, unitNode, waitOff } = this;
    const from = this.streamStart[this.deviceStreams[at]!]!;
    const shift = this.u - from;
    const s0 = this.deviceStreams[at]!;
    const s1 = this.s;
    // The segment copied may end right here: its last unit's waits end where the next begin.
    waitOff[this.u] = this.tw;
    for (let l = 0; l < sorted.length; l++) {
      const lane = sorted[l]!;
      this.streamStart[this.s] = this.u;
      for (let k = laneOff[lane]!; k < laneOff[lane + 1]!; k++) {
        const u = this.u++;
        const x = u - shift;
        this.unitStream[u] = this.unitStream[x]! - s0 + s1;
        kind[u] = kind[x]!;
        this.rank[u] = this.rank[x]!;
        unitNode[u] = unitNode[x]!;
        waitOff[u] = this.tw;
        for (let j = waitOff[x]!; j < waitOff[x + 1]!; j++) {
          const outside = this.outsideWaits.get(j);
          if (outside !== undefined) this.outsideWaits.set(this.tw, outside);
          this.addWait(this.waitTgt[j]! + shift);
        }
        const kx = kind[x]!;
        if (kx === UNIT_SEND || kx === UNIT_RECV) {
          this.peerIndex[u] = peers[this.t.peer[unitNode[x]!]!]!;
          this.transferKey[u] = this.transferKey[x]!;
        } else if (kx === UNIT_COLLECTIVE) {
          if (this.subgroup.has(x)) this.setMembers(u, unitNode[x]!, rank);
          else this.devices.set(u, this.devices.get(x)!);
        } else if (kx === UNIT_OVERLAP) this.overlaps.set(u, this.overlaps.get(x)!);
      }
      this.s++;
    }
  }

  /** The SEND a RECV receives from: its predecessor of the same transfer (−1 − i if none). */
  private sendOfRecv(i: number): number {
    const { t, inc } = this;
    for (let k = inc.offset[i]!; k < inc.offset[i + 1]!; k++) {
      const x = inc.node[k]!;
      if (t.op[x] === OP_SEND && this.sameTransfer(x, i)) return x;
    }
    return -1 - i;
  }

  /**
   * A SEND x and RECV i of one transfer: the same producer and receiving group, which is what
   * the transfer's name says (dagTable.ts), unless the DAG gave names of its own.
   */
  private sameTransfer(x: number, i: number): boolean {
    const t = this.t;
    if (t.transfers.size > 0) return transferOf(this.dag, x) === transferOf(this.dag, i);
    const source = t.source[i]!;
    return source >= 0 && t.source[x] === source && t.peer[x] === t.group[i];
  }
}

/** What the units of a plan lowered from `dag` cost: the node columns and the model's costs per op. */
function unitCosts(dag: Dag, t: NodeTable, updMs: readonly number[]): UnitCosts {
  const B = dag.blocks.length;
  const ms = new Float64Array(B * COST_STRIDE).fill(Number.NaN);
  const flops = new Float64Array(B * COST_STRIDE).fill(Number.NaN);
  const kernels: (OpKernels | undefined)[] = new Array(B * COST_STRIDE).fill(undefined);
  for (let b = 0; b < B; b++)
    for (let code = 0; code < OP_UPD; code++) {
      ms[b * COST_STRIDE + code] = opMs(dag, code, b, -1, updMs) ?? Number.NaN;
      flops[b * COST_STRIDE + code] = opFlops(dag, code, b) ?? Number.NaN;
      kernels[b * COST_STRIDE + code] = blockOpKernels(dag, code, b);
    }
  return {
    op: t.op,
    block: t.block,
    group: t.group,
    peer: t.peer,
    alloc: t.alloc,
    free: t.free,
    bytes: t.bytes,
    ms,
    flops,
    kernels,
    updMs: Float64Array.from(updMs),
  };
}

/** The compute stream first: it is what timelines and metrics read first. */
function streamRank(a: string, b: string): number {
  return a === 'compute' ? -1 : b === 'compute' ? 1 : a.localeCompare(b);
}
