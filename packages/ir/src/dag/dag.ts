/**
 * The global training DAG: every compute and communication op of one training step, cluster-wide,
 * at block × pass × microbatch granularity. Passes treat a `Dag` as immutable: a pass returns a
 * new `Dag` that shares every node and column it did not change, so keeping a snapshot after each
 * pass costs only what that pass changed.
 */

import type { RecomputePart } from '../design/directive.ts';
import type { PassName } from '../design/filter.ts';
import type { BlockKernels } from '../design/kernels.ts';
import type { GroupMesh } from '../design/mesh.ts';
import { lengthened, newColumn, shortened } from '../memory/columns.ts';
import type { DagRows } from './dagTable.ts';

export type ComputeOp = 'F' | 'B' | 'BI' | 'BW' | 'RECOMPUTE' | 'UPD';
export type P2POp = 'SEND' | 'RECV';
export type CollectiveOp = 'ALL_REDUCE' | 'REDUCE_SCATTER' | 'ALL_GATHER' | 'ALL_TO_ALL';
export type MemoryOp = 'OFFLOAD' | 'RELOAD';
export type ControlOp = 'ORDER_SOURCE' | 'ORDER_SINK';
export type NodeOp = ComputeOp | P2POp | CollectiveOp | MemoryOp | ControlOp;

export const COMPUTE_OPS: readonly ComputeOp[] = ['F', 'B', 'BI', 'BW', 'RECOMPUTE', 'UPD'];

/** Which directive (index into the expanded program; null for the model itself) and pass made or last changed a node. */
export interface Provenance {
  pass: string;
  directive: number | null;
}

/** A block of the model: a layer or a group of layers, the unit tags and costs attach to. */
export interface BlockInfo {
  name: string;
  tags: Readonly<Record<string, number>>;
  /** Per-microbatch milliseconds (synthetic models). */
  ms?: { F: number; BI: number; BW: number; FandB: number; UPD: number };
  /** Per-microbatch FLOPs (transformer models). */
  flops?: { F: number; BI: number; BW: number };
  /** Per-microbatch GEMM shapes and kernel launches on the device running it (transformer models). */
  kernels?: BlockKernels;
  activationBytes: number;
  /** Stashed bytes when the block is recomputed (its input only); transformer models give it. */
  recomputeActivationBytes?: number;
  /**
   * Of activationBytes, the norm's input and output: tensor parallelism leaves them whole on every
   * member unless it is sequence parallel (Korthikanti et al. 2022, "Reducing Activation
   * Recomputation in Large Transformer Models", §4.2); transformer models give it.
   */
  sequenceActivationBytes?: number;
  paramBytes: number;
  outputBytes: number;
  /**
   * Bytes of the block's keys and values for one microbatch: what context parallelism exchanges
   * (transformer attention blocks only).
   */
  kvBytes?: number;
  /** Tokens one microbatch pass of the block processes (transformer models). */
  tokens?: number;
  /**
   * What selective recomputation (`recompute` with `ops`) can drop, per part: the stashed bytes it
   * re-makes, the forward GEMMs that make them (indices into `kernels.gemms`) and the other
   * kernels it launches again. Transformer models give it; a part a block lacks is absent.
   */
  recomputeParts?: Partial<Record<RecomputePart, RecomputePartCost>>;
  /** Set by `recompute` with `ops`: what its RECOMPUTE re-runs, instead of the whole forward. */
  recomputeSelection?: { ops: readonly RecomputePart[]; flops: number; kernels?: BlockKernels };
  /**
   * Of paramBytes, the bytes that are one tensor with block `block`'s (DeepSeek-V3's MTP modules
   * use the main model's embedding and output head, arXiv 2412.19437, §2.2): a group holding both
   * blocks keeps one copy, with one gradient and one optimizer state (§3.2.3).
   */
  sharedParams?: { block: number; bytes: number };
  /** Of activationBytes, the routed tokens' copies as dispatch delivers them (expert blocks). */
  dispatchedActivationBytes?: number;
  /** Routed experts of an MoE block (expert parallelism must divide them) and how many each token visits. */
  experts?: number;
  topK?: number;
}

/** One part selective recomputation can re-make (BlockInfo.recomputeParts). */
export interface RecomputePartCost {
  bytes: number;
  gemms: readonly number[];
  launches: number;
  /** HBM bytes its memory-bound kernels move when it is re-made (norms, SwiGLU, RoPE); absent: 0. */
  elementwiseBytes?: number;
}

/** Data parallelism of some blocks on one device group, as `replicate` set it (ZeRO stage 0..3). */
export interface DataParallelRegion {
  readonly group: number;
  readonly blocks: readonly number[];
  readonly zero: 0 | 1 | 2 | 3;
  readonly directive: number;
  /** Members one gradient is reduced over (ZeRO shards over them): the group's size unless over mesh axes. */
  readonly degree?: number;
  /** The mesh axes it runs over (bit mask, mesh.ts); absent for the whole group. */
  readonly mask?: number;
}

/** Context parallelism of some blocks on one device group, as `shard_sequence` set it. */
export interface ContextParallelRegion {
  readonly group: number;
  readonly blocks: readonly number[];
  readonly degree: number;
  readonly form: 'ring' | 'all_gather';
  readonly directive: number;
  /** The mesh axes it runs over (bit mask, mesh.ts); absent for the whole group. */
  readonly mask?: number;
}

/** A dimension created by `split` (Piper's microbatching); nodes carry an index per dimension. */
export interface SplitDim {
  name: string;
  size: number;
  /** Index into the expanded program of the `split` that made it. */
  directive: number;
}

interface NodeBase {
  /** Stable id, unique in the DAG and derived from what the node is, e.g. `F.b3.mb5`. */
  readonly id: string;
  /** Model block the node belongs to; -1 for device-group ops (UPD) and control nodes. */
  readonly block: number;
  /** Index per split dimension (`dag.dims`), -1 where the node was not split along it. */
  readonly dims: readonly number[];
  /** Device group index into `dag.groups`; -1 until placed. */
  readonly group: number;
  readonly stream: string;
  readonly provenance: Provenance;
}

export interface ComputeNode extends NodeBase {
  readonly kind: 'compute';
  readonly op: ComputeOp;
  /** Memory effect: bytes allocated when the op starts and released when it ends. */
  readonly allocBytes: number;
  readonly freeBytes: number;
  /** Stream the SEND/RECV of this op's cross-group edges run on (set by `place`). */
  readonly p2pStream?: string | undefined;
}

export interface P2PNode extends NodeBase {
  readonly kind: 'p2p';
  readonly op: P2POp;
  /** Group on the other side of the transfer. */
  readonly peerGroup: number;
  readonly bytes: number;
  /** Shared by a SEND and its RECV. */
  readonly transfer: string;
  /** Pass of the op whose output is transferred. */
  readonly pass: ComputeOp;
}

export interface CollectiveNode extends NodeBase {
  readonly kind: 'collective';
  readonly op: CollectiveOp;
  readonly devices: readonly number[];
  readonly bytes: number;
}

export interface MemoryNode extends NodeBase {
  readonly kind: 'memory';
  readonly op: MemoryOp;
  readonly bytes: number;
}

export interface ControlNode extends NodeBase {
  readonly kind: 'control';
  readonly op: ControlOp;
}

export type DagNode = ComputeNode | P2PNode | CollectiveNode | MemoryNode | ControlNode;

export const EDGE_DATA = 0;
export const EDGE_TEMPORAL = 1;
export type EdgeKind = typeof EDGE_DATA | typeof EDGE_TEMPORAL;

/**
 * Edges as parallel typed columns (node indices), because a large design has hundreds of
 * thousands and passes mostly append: a copy is one block move and the garbage collector never
 * scans them. A pass that changes edges returns new arrays; it never writes old ones.
 */
export interface EdgeList {
  readonly from: Int32Array;
  readonly to: Int32Array;
  /** EDGE_DATA or EDGE_TEMPORAL. */
  readonly kind: Uint8Array;
  /** Tensor bytes a data edge carries (0 for temporal edges). */
  readonly bytes: Float64Array;
}

/** Nodes of an `order` slot that run overlapped as one unit (DualPipe's F&B pair). */
export interface OverlapSlot {
  readonly nodes: readonly number[];
  readonly directive: number;
}

export interface StreamSpec {
  name: string;
  priority?: number;
  smFraction?: number;
}

export interface Dag {
  readonly blocks: readonly BlockInfo[];
  readonly dims: readonly SplitDim[];
  /** Device groups (each a list of devices) in order of first use. */
  readonly groups: readonly (readonly number[])[];
  readonly nodes: readonly DagNode[];
  readonly edges: EdgeList;
  readonly overlaps: readonly OverlapSlot[];
  readonly streams: readonly StreamSpec[];
  /** Set by `replicate`: which blocks each group holds data-parallel, at which ZeRO stage. */
  readonly dataParallel?: readonly DataParallelRegion[];
  /**
   * Set by `shard_tensor`: groups whose members split blocks (they all see the same tokens); over
   * mesh axes, `mask` names them and each sub-group along them splits the blocks.
   */
  readonly tensorParallel?: readonly {
    readonly group: number;
    readonly blocks: readonly number[];
    readonly mask?: number;
  }[];
  /**
   * Set by `shard_sequence`: blocks whose sequence the members of a sub-group along `mask` (the
   * whole group when absent) split `degree` ways, and how their attention exchanges K and V.
   */
  readonly contextParallel?: readonly ContextParallelRegion[];
  /** Per group, its mesh (design format @3), null for a flat group; absent when no group has one. */
  readonly meshes?: readonly (GroupMesh | null)[];
  /**
   * Collectives over mesh axes of their group: node → bit mask of the axes (mesh.ts). Each member
   * issues the node over its own sub-group along those axes; a node not here runs over its group.
   * Keyed by node index, which no pass changes once collectives exist (passes only append).
   */
  readonly subgroups?: ReadonlyMap<number, number>;
  /**
   * Collectives across groups: each entry is one collective's nodes, one per group it spans (a
   * node lives on one group's stream), issued by all of them as one (the first node names it).
   * Set by `reduce-copies` for DualPipe's two model copies.
   */
  readonly jointCollectives?: readonly (readonly number[])[];
  /**
   * The nodes as columns, set when the DAG is made from them (`dagOf`, dagTable.ts), as every
   * pass makes its output; `nodes` is then made from them when first read. Absent on a DAG given
   * as node objects (a test's, a deserialised one). Not enumerable: a DAG serialises, clones and
   * spreads as the fields above.
   */
  readonly rows?: DagRows;
}

export function emptyEdges(): EdgeList {
  return edgeColumns(0);
}

/** Edge columns of `count` edges, all zero, for a pass to fill; `spare`: room to append in place (columns.ts). */
export function edgeColumns(count: number, spare = 0): EdgeList {
  return {
    from: newColumn(Int32Array, 4, count, spare),
    to: newColumn(Int32Array, 4, count, spare),
    kind: newColumn(Uint8Array, 1, count, spare),
    bytes: newColumn(Float64Array, 8, count, spare),
  };
}

/** The first `count` edges of columns allocated larger (views: the rest stays room to append). */
export function firstEdges(e: EdgeList, count: number): EdgeList {
  if (count === e.from.length) return e;
  return {
    from: shortened(e.from, count),
    to: shortened(e.to, count),
    kind: shortened(e.kind, count),
    bytes: shortened(e.bytes, count),
  };
}

/** `a`'s edges followed by `b`'s (in `a`'s memory when it has room: columns.ts). */
export function joinEdges(a: EdgeList, b: EdgeList): EdgeList {
  const m = b.from.length;
  if (m === 0) return a;
  const at = a.from.length;
  const n = at + m;
  const out = {
    from: lengthened(a.from, n, 0),
    to: lengthened(a.to, n, 0),
    kind: lengthened(a.kind, n, 0),
    bytes: lengthened(a.bytes, n, 0),
  };
  out.from.set(b.from, at);
  out.to.set(b.to, at);
  out.kind.set(b.kind, at);
  out.bytes.set(b.bytes, at);
  return out;
}

/** Tags of a node as filters see them: its block's tags, its split indices and its PASS. */
export function nodeTags(dag: Dag, node: DagNode): Record<string, number | string> {
  const tags: Record<string, number | string> = node.block >= 0 ? { ...dag.blocks[node.block]!.tags } : {};
  dag.dims.forEach((d, i) => {
    const v = node.dims[i];
    if (v !== undefined && v >= 0) tags[d.name] = v;
  });
  const pass = node.kind === 'compute' ? node.op : node.kind === 'p2p' ? node.pass : undefined;
  if (pass && isPassName(pass)) tags.PASS = pass;
  return tags;
}

export function isPassName(op: string): op is PassName {
  return op === 'F' || op === 'B' || op === 'BI' || op === 'BW';
}

/**
 * Node constructors. Every node of a kind is built with the same fields in the same order: the
 * JavaScript engine then shares one shape among hundreds of thousands of nodes, where object
 * spreads would make each its own (and make passes and garbage collection many times slower).
 */
export function computeNode(n: {
  op: ComputeOp;
  id: string;
  block: number;
  dims: readonly number[];
  group: number;
  stream: string;
  provenance: Provenance;
  allocBytes: number;
  freeBytes: number;
  p2pStream?: string | undefined;
}): ComputeNode {
  return {
    kind: 'compute',
    op: n.op,
    id: n.id,
    block: n.block,
    dims: n.dims,
    group: n.group,
    stream: n.stream,
    provenance: n.provenance,
    allocBytes: n.allocBytes,
    freeBytes: n.freeBytes,
    p2pStream: n.p2pStream,
  };
}

export function p2pNode(n: Omit<P2PNode, 'kind'>): P2PNode {
  return {
    kind: 'p2p',
    op: n.op,
    id: n.id,
    block: n.block,
    dims: n.dims,
    group: n.group,
    stream: n.stream,
    provenance: n.provenance,
    peerGroup: n.peerGroup,
    bytes: n.bytes,
    transfer: n.transfer,
    pass: n.pass,
  };
}
