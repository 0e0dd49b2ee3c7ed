/**
 * The instructions of a compiled plan, made when first read. Lowering leaves the plan as columns
 * (planColumns.ts) and a `stagecraft/plan@2` object whose streams build their instruction objects
 * from those columns and the DAG the first time `instructions` is read: validating and simulating
 * a compiled plan read only the layout of its columns (layoutFromColumns.ts, compiledLayout.ts), so a compile + simulate of hundreds of thousands of ops
 * never makes an object per instruction, while writing the plan to a file, exporting it or
 * drawing it sees exactly the plan an eager lowering would have built.
 *
 * A device of rank r in its group runs the group's program with its own SEND/RECV peers (the
 * members of rank r of the peer groups): the program is made once per group (with rank 0's
 * peers) and each other rank's copy shares every instruction but its SENDs and RECVs.
 */

import {
  type CollectiveInstruction,
  type ComputeInstruction,
  type ComputeOp,
  type Dag,
  type Instruction,
  kindOfCode,
  NODE_OPS,
  type NodeTable,
  nodeIdOf,
  OP_B,
  OP_BI,
  OP_BW,
  OP_F,
  OP_RECOMPUTE,
  OP_SEND,
  OP_UPD,
  type OpKernels,
  opKernels,
  type P2PInstruction,
  type PlanChunks,
  type PlanTensor,
  type Provenance,
  tableOf,
  transferOf,
} from '@stagecraft/ir';
import { CollectiveMembers, collectiveKey } from './collectiveMembers.ts';
import {
  collectiveChunks,
  collectiveParams,
  collectiveTensors,
  microbatchOf,
  ringExchanges,
  scatteredTransfers,
} from './runtimeFields.ts';

type Tags = Record<string, number | string>;

/** What a lowering leaves for its instructions to be made from: the DAG and the plan's columns. */
export interface LoweredProgram {
  readonly dag: Dag;
  /** Units of each global stream (planColumns.ts `streamStart`). */
  readonly streamStart: Int32Array;
  /** DAG node of each unit; an OVERLAP's first member. */
  readonly unitNode: Int32Array;
  /** Waits of each unit as the units they name, CSR by `waitOff` (planColumns.ts). */
  readonly waitOff: Int32Array;
  readonly waitTgt: Int32Array;
  /** Waits naming a node outside the unit's group, which has no unit: the node, by wait index. */
  readonly outsideWaits: ReadonlyMap<number, number>;
  /** Members of each overlapped unit by its first member. */
  readonly members: ReadonlyMap<number, readonly number[]>;
  /** Per group: the UPD cost (the sum of its blocks'). */
  readonly updMs: readonly number[];
}

const NO_WAITS: string[] = [];

/**
 * Makes instructions from a lowered program: `stream(s, rank)` is global stream s of the group's
 * first lowering, as the device of `rank` in the group runs it. Ids, tags and provenance records
 * are made once and shared by every instruction that has them.
 */
export class PlanInstructions {
  private readonly t: NodeTable;
  private readonly made = new Map<number, Instruction[]>();
  private readonly tagCache = new Map<number, Tags>();
  private readonly templates = new Map<number, Tags>();
  private readonly provenances = new Map<string, Provenance>();
  private readonly radix: number[];
  private params: Map<number, number[]> | undefined;
  private tensors: Map<number, PlanTensor> | undefined;
  private rings: Map<number, number> | undefined;
  private scattered: Map<number, number> | undefined;
  private chunks: Map<number, (n: number) => PlanChunks> | undefined;

  private readonly members: CollectiveMembers;

  constructor(private readonly p: LoweredProgram) {
    this.t = tableOf(p.dag);
    this.members = new CollectiveMembers(p.dag, this.t);
    this.radix = p.dag.dims.map((d) => d.size + 2);
  }

  stream(s: number, rank: number): Instruction[] {
    let proto = this.made.get(s);
    if (!proto) this.made.set(s, (proto = this.program(s)));
    return rank === 0 ? proto : this.withPeersOfRank(proto, s, rank);
  }

  /** Id of the unit whose first member is node i: the node's, or `(a;b)` for an overlapped pair. */
  unitId(i: number): string {
    const ms = this.p.members.get(i);
    return ms ? `(${ms.map((m) => nodeIdOf(this.p.dag, m)).join(';')})` : nodeIdOf(this.p.dag, i);
  }

  private program(s: number): Instruction[] {
    const { streamStart, unitNode, waitOff, waitTgt, outsideWaits, members } = this.p;
    const dag = this.p.dag;
    const t = this.t;
    const u0 = streamStart[s]!;
    const out = new Array<Instruction>(streamStart[s + 1]! - u0);
    for (let k = 0; k < out.length; k++) {
      const u = u0 + k;
      const i = unitNode[u]!;
      const w0 = waitOff[u]!;
      const w1 = waitOff[u + 1]!;
      const ms = members.get(i);
      let waits: string[];
      if (w1 === w0) waits = ms ? [] : NO_WAITS;
      else {
        waits = new Array<string>(w1 - w0);
        for (let j = w0; j < w1; j++)
          waits[j - w0] = this.unitId(outsideWaits.get(j) ?? unitNode[waitTgt[j]!]!);
      }
      if (ms) {
        const ins: Instruction = {
          op: 'OVERLAP',
          id: this.unitId(i),
          tags: {},
          waits,
          members: ms.map((m) => this.compute(m, NO_WAITS)),
        };
        const unitMs = overlapMs(dag, t, ms, this.p.updMs);
        if (unitMs !== undefined) ins.ms = unitMs;
        out[k] = ins;
        continue;
      }
      const code = t.op[i]!;
      switch (kindOfCode(code)) {
        case 'compute':
          out[k] = this.compute(i, waits);
          break;
        case 'p2p':
          out[k] = this.p2p(i, waits, dag.groups[t.peer[i]!]![0]!);
          break;
        case 'collective':
          out[k] = this.collective(i, waits, 0);
          break;
        case 'memory':
          out[k] = {
            op: NODE_OPS[code] as 'OFFLOAD',
            id: nodeIdOf(dag, i),
            tags: this.tags(i),
            waits,
            bytes: t.bytes[i]!,
            provenance: this.provenance(i),
            block: t.block[i]!,
            microbatch: microbatchOf(dag, t, i),
          };
          break;
        case 'control':
          throw new Error(`lower-plan: control node ${nodeIdOf(dag, i)} has a lane`);
      }
    }
    return out;
  }

  /**
   * The group's program with the SEND/RECV peers of the member of `rank`, and its own sub-group for
   * a collective over mesh axes or its own pair for one across groups.
   */
  private withPeersOfRank(proto: Instruction[], s: number, rank: number): Instruction[] {
    const out = proto.slice();
    const u0 = this.p.streamStart[s]!;
    // Over mesh axes, or across groups (DualPipe's copies pair the members of each rank).
    const bySubgroup = this.p.dag.subgroups !== undefined || this.p.dag.jointCollectives !== undefined;
    for (let k = 0; k < out.length; k++) {
      const ins = out[k]!;
      if (ins.op === 'SEND' || ins.op === 'RECV') {
        const i = this.p.unitNode[u0 + k]!;
        out[k] = this.p2p(i, ins.waits, this.p.dag.groups[this.t.peer[i]!]![rank]!, ins.tags);
      } else if (bySubgroup && 'collective' in ins) {
        const i = this.p.unitNode[u0 + k]!;
        if (this.members.bySubgroup(i)) out[k] = this.collective(i, ins.waits, rank);
      }
    }
    return out;
  }

  private collective(i: number, waits: string[], rank: number): CollectiveInstruction {
    const dag = this.p.dag;
    const t = this.t;
    const id = nodeIdOf(dag, i);
    const m = this.members.of(i, rank);
    const ins: CollectiveInstruction = {
      op: NODE_OPS[t.op[i]!] as 'ALL_REDUCE',
      id,
      tags: this.tags(i),
      waits,
      // Shared: a group's collectives name one array, which checks cache by identity.
      devices: m.devices as number[],
      bytes: t.bytes[i]!,
      collective: collectiveKey(id, m),
      provenance: this.provenance(i),
    };
    const params = (this.params ??= collectiveParams(dag, t)).get(i);
    if (params !== undefined) ins.params = params;
    const tensor = (this.tensors ??= collectiveTensors(dag, t)).get(i);
    if (tensor !== undefined) ins.tensor = tensor;
    const chunks = (this.chunks ??= collectiveChunks(dag, t)).get(i);
    if (chunks !== undefined) ins.chunks = chunks(m.devices.length);
    const steps = (this.rings ??= ringExchanges(dag, t)).get(i);
    if (steps !== undefined) ins.ringSteps = steps;
    return ins;
  }

  private compute(i: number, waits: string[]): ComputeInstruction {
    const t = this.t;
    const dag = this.p.dag;
    const code = t.op[i]!;
    const op = NODE_OPS[code] as ComputeOp;
    const ms = opMs(dag, code, t.block[i]!, t.group[i]!, this.p.updMs);
    const flops = opFlops(dag, code, t.block[i]!);
    const kernels = blockOpKernels(dag, code, t.block[i]!);
    const id = nodeIdOf(dag, i);
    const tags = this.tags(i);
    const provenance = this.provenance(i);
    const a = t.alloc[i]!;
    const f = t.free[i]!;
    const block = t.block[i]!;
    const microbatch = microbatchOf(dag, t, i);
    // One literal per combination of optional fields, so each instruction is built with its
    // final shape (adding fields one by one would reshape hundreds of thousands of objects).
    if (ms !== undefined && flops === undefined && block >= 0) {
      if (a > 0 && f <= 0) return { op, id, tags, waits, provenance, ms, allocBytes: a, block, microbatch };
      if (a <= 0 && f > 0) return { op, id, tags, waits, provenance, ms, freeBytes: f, block, microbatch };
      if (a <= 0 && f <= 0) return { op, id, tags, waits, provenance, ms, block, microbatch };
    }
    const ins: ComputeInstruction = { op, id, tags, waits, provenance };
    if (ms !== undefined) ins.ms = ms;
    if (flops !== undefined) ins.flops = flops;
    if (kernels !== undefined) ins.kernels = kernels;
    if (a > 0) ins.allocBytes = a;
    if (f > 0) ins.freeBytes = f;
    if (block >= 0) {
      ins.block = block;
      ins.microbatch = microbatch;
    }
    return ins;
  }

  private p2p(i: number, waits: string[], peer: number, tags = this.tags(i)): P2PInstruction {
    const t = this.t;
    const ins: P2PInstruction = {
      op: t.op[i] === OP_SEND ? 'SEND' : 'RECV',
      id: nodeIdOf(this.p.dag, i),
      tags,
      waits,
      peer,
      bytes: t.bytes[i]!,
      transfer: transferOf(this.p.dag, i),
      provenance: this.provenance(i),
      tensor: {
        block: t.block[i]!,
        pass: NODE_OPS[t.pass[i]!] as 'F',
        microbatch: microbatchOf(this.p.dag, t, i),
      },
    };
    const gather = (this.scattered ??= scatteredTransfers(this.p.dag, t)).get(i);
    // Every sub-group of the gather has as many members: any rank's tells n.
    if (gather !== undefined) ins.scatter = this.members.of(gather, 0).devices.length;
    return ins;
  }

  private provenance(i: number): Provenance {
    const pass = this.t.names[this.t.provPass[i]!]!;
    const directive = this.t.provDirective[i]!;
    const key = `${directive}|${pass}`;
    let p = this.provenances.get(key);
    if (!p) this.provenances.set(key, (p = { pass, directive: directive < 0 ? null : directive }));
    return p;
  }

  /**
   * Tags of node i as filters see them: its block's tags, its split indices and its PASS (a
   * SEND's or RECV's: the pass whose output it carries). Nodes with the same block, indices and
   * pass share one tags record.
   */
  private tags(i: number): Tags {
    const t = this.t;
    const dag = this.p.dag;
    const code = t.op[i]!;
    const passCode = kindOfCode(code) === 'p2p' ? t.pass[i]! : code;
    // UPD, RECOMPUTE and the rest have no PASS tag.
    const pass = passCode <= OP_BW ? passCode : -1;
    const block = t.block[i]!;
    const cols = t.dims;
    let key = block + 1;
    let mask = 0;
    for (let d = 0; d < cols.length; d++) {
      const v = cols[d]![i]!;
      key = key * this.radix[d]! + v + 1;
      if (v >= 0) mask |= 1 << d;
    }
    key = key * 5 + pass + 1;
    const hit = this.tagCache.get(key);
    if (hit) return hit;
    // One template per (block, which split indices are set, pass) with every key in place: a copy
    // of it and a write per split index make the tags without adding a property.
    const tkey = ((block + 1) * (1 << cols.length) + mask) * 5 + pass + 1;
    let tpl = this.templates.get(tkey);
    if (!tpl) {
      tpl = block >= 0 ? { ...dag.blocks[block]!.tags } : {};
      for (let d = 0; d < cols.length; d++) if (mask & (1 << d)) tpl[dag.dims[d]!.name] = 0;
      if (pass >= 0) tpl.PASS = NODE_OPS[pass]!;
      this.templates.set(tkey, tpl);
    }
    const tags = { ...tpl };
    for (let d = 0; d < cols.length; d++) if (mask & (1 << d)) tags[dag.dims[d]!.name] = cols[d]![i]!;
    this.tagCache.set(key, tags);
    return tags;
  }
}

/** Milliseconds of a compute op where the model gives them (synthetic models): B is BI + BW. */
export function opMs(
  dag: Dag,
  code: number,
  block: number,
  group: number,
  updMs: readonly number[],
): number | undefined {
  if (code === OP_UPD) return updMs[group] ?? 0;
  const c = dag.blocks[block]?.ms;
  if (!c) return undefined;
  switch (code) {
    case OP_F:
    case OP_RECOMPUTE:
      return c.F;
    case OP_B:
      return c.BI + c.BW;
    case OP_BI:
      return c.BI;
    case OP_BW:
      return c.BW;
  }
  return undefined;
}

/** FLOPs of a compute op where the model gives them (transformer models): B is BI + BW. */
export function opFlops(dag: Dag, code: number, block: number): number | undefined {
  if (code === OP_UPD) return undefined;
  const f = dag.blocks[block]?.flops;
  if (!f) return undefined;
  switch (code) {
    case OP_RECOMPUTE:
      return dag.blocks[block]!.recomputeSelection?.flops ?? f.F;
    case OP_F:
      return f.F;
    case OP_B:
      return f.BI + f.BW;
    case OP_BI:
      return f.BI;
    case OP_BW:
      return f.BW;
  }
  return undefined;
}

/** GEMM shapes and launches of a compute op where the model gives them (transformer models). */
export function blockOpKernels(dag: Dag, code: number, block: number): OpKernels | undefined {
  const k = dag.blocks[block]?.kernels;
  if (!k) return undefined;
  // One object per block and op, shared by its instructions (a plan is a value, never edited in place).
  let memo = kernelsMemo.get(dag);
  if (!memo) kernelsMemo.set(dag, (memo = new Map()));
  const key = block * 8 + code;
  let ops = memo.get(key);
  if (ops === undefined) {
    // A selective recompute re-runs only its selection's GEMMs and launches.
    const selection = code === OP_RECOMPUTE ? dag.blocks[block]!.recomputeSelection?.kernels : undefined;
    memo.set(key, (ops = opKernels(selection ?? k, code)));
  }
  return ops;
}

const kernelsMemo = new WeakMap<Dag, Map<number, OpKernels | undefined>>();

/** Overlapped ops take FandB/(F+B) of their separate time: exactly FandB for one F and one B. */
export function overlapMs(
  dag: Dag,
  t: NodeTable,
  ms: readonly number[],
  updMs: readonly number[],
): number | undefined {
  let total = 0;
  for (const m of ms) {
    const c = dag.blocks[t.block[m]!]?.ms;
    if (!c) return undefined;
    const separate = c.F + c.BI + c.BW;
    const own = opMs(dag, t.op[m]!, t.block[m]!, t.group[m]!, updMs) ?? 0;
    total += separate > 0 ? (own * c.FandB) / separate : 0;
  }
  return total;
}
