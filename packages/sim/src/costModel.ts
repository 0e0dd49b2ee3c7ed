/**
 * The cost model: how long one instruction takes on a cluster. Every formula is its own small
 * function so later work (link contention, the SM share a communication stream takes from compute,
 * cluster presets) can refine one without touching the engine.
 *
 * Units: milliseconds, bytes, GB/s = 1e9 bytes/s, µs for link latency.
 */
import {
  type Cluster,
  type CollectiveInstruction,
  type ComputeInstruction,
  expandCluster,
  type Issue,
  type OpKernels,
} from '@stagecraft/ir';
import { type GemmGpu, kernelsMs } from './kernelCost.ts';
import { NCCL_PROFILES, type NcclProfile, ncclChoice } from './ncclTuning.ts';

export {
  ATTENTION_HALF_SEQ,
  attentionMs,
  attentionSeqEfficiency,
  FP8_CAST_BYTES_PER_ELEMENT,
  fp8CastMs,
  GEMM_TILE,
  type GemmGpu,
  gemmMs,
  gemmRate,
  KERNEL_LAUNCH_MS,
  kernelsMs,
  shapeEfficiency,
} from './kernelCost.ts';

/** A cluster resolved to the numbers the simulator needs. */
export type CostCluster =
  | { kind: 'ideal'; p2pLatencyMs: number; dispatchMs: number }
  | {
      kind: 'custom';
      /** Host time to issue one instruction (the cluster's `dispatchMs`, else 0). */
      dispatchMs: number;
      gpusPerNode: number;
      /** Sustained compute rate in FLOP per millisecond (BF16 peak × achievable fraction). */
      flopsPerMs: number;
      /** What kernels are timed by: peaks, measured fractions, SMs and HBM bandwidth. */
      gpu: GemmGpu;
      intraNode: Link;
      interNode: Link;
      /** A preset's NCCL profile: its collectives timed as NCCL picks them (ncclTuning.ts); else alpha-beta. */
      nccl?: NcclProfile;
    };

/** A link in the units the formulas use. */
export interface Link {
  /** Bytes per millisecond. */
  bytesPerMs: number;
  latencyMs: number;
}

export type CollectiveOp = CollectiveInstruction['op'];

/** Resolves the plan's cluster; a preset expands to its full form (an unknown one is an error at the field). */
export function resolveCluster(
  input: Cluster,
): { ok: true; cost: CostCluster } | { ok: false; errors: Issue[] } {
  const expanded = expandCluster(input);
  if (!expanded.ok) return expanded;
  const cluster = expanded.cluster;
  if (cluster.kind === 'ideal')
    return {
      ok: true,
      cost: { kind: 'ideal', p2pLatencyMs: cluster.p2pLatencyMs ?? 0, dispatchMs: cluster.dispatchMs ?? 0 },
    };
  const g = cluster.gpu;
  const fraction = g.achievableFraction ?? 1;
  const gpu: GemmGpu = {
    peakFlopsPerMs: g.peakTflops * 1e9,
    fp8PeakFlopsPerMs: (g.fp8PeakTflops ?? g.peakTflops) * 1e9,
    achievableFraction: fraction,
    fp8AchievableFraction: g.fp8AchievableFraction ?? fraction,
  };
  if (g.attentionFraction !== undefined) gpu.attentionFraction = { ...g.attentionFraction };
  if (g.sms !== undefined) gpu.sms = g.sms;
  if (g.memoryGBps !== undefined) {
    gpu.memoryBytesPerMs = g.memoryGBps * 1e6;
    gpu.streamBytesPerMs = g.memoryGBps * 1e6 * (g.memoryFraction ?? 1);
  }
  // Only a preset names a node type whose NCCL behaviour is known; a custom cluster gives links alone.
  const nccl =
    'preset' in input && Object.hasOwn(NCCL_PROFILES, input.preset) ? NCCL_PROFILES[input.preset] : undefined;
  return {
    ok: true,
    cost: {
      kind: 'custom',
      dispatchMs: cluster.dispatchMs ?? 0,
      gpusPerNode: cluster.gpusPerNode,
      flopsPerMs: g.peakTflops * 1e12 * fraction * 1e-3,
      gpu,
      intraNode: link(cluster.intraNode),
      interNode: link(cluster.interNode),
      ...(nccl ? { nccl } : {}),
    },
  };
}

function link(l: { bandwidthGBps: number; latencyUs: number }): Link {
  return { bytesPerMs: l.bandwidthGBps * 1e6, latencyMs: l.latencyUs * 1e-3 };
}

/**
 * Duration of a compute instruction: its `ms` when the model gives one, else its FLOPs on the GPU:
 * by GEMM shape when the instruction lists its kernels (kernelsMs), else at the GPU's sustained
 * rate; an instruction with neither costs 0. On the ideal cluster FLOPs alone cannot be timed:
 * that is an error (a message, returned as a string).
 */
export function computeMs(inst: ComputeInstruction, cost: CostCluster): number | string {
  return computeMsOf(inst.ms, inst.flops, cost, inst.kernels);
}

/** `computeMs` of an instruction's `ms`, `flops` and `kernels` fields. */
export function computeMsOf(
  ms: number | undefined,
  flops: number | undefined,
  cost: CostCluster,
  kernels?: OpKernels,
): number | string {
  if (ms !== undefined) return ms;
  if (flops === undefined) return 0;
  if (cost.kind === 'ideal') return 'has flops but no ms: the ideal cluster has no GPU to time FLOPs on';
  if (kernels === undefined) return flops / cost.flopsPerMs;
  return kernelsMs(flops, kernels, cost.gpu);
}

/** The link between two devices: intra-node when both sit in the same node (device / gpusPerNode). */
export function linkBetween(cost: CostCluster & { kind: 'custom' }, a: number, b: number): Link {
  return Math.floor(a / cost.gpusPerNode) === Math.floor(b / cost.gpusPerNode)
    ? cost.intraNode
    : cost.interNode;
}

/** Time a SEND occupies its stream: latency + bytes / bandwidth (ideal: the fixed latency, no transfer time). */
export function p2pMs(cost: CostCluster, from: number, to: number, bytes: number): number {
  if (cost.kind === 'ideal') return cost.p2pLatencyMs;
  const l = linkBetween(cost, from, to);
  return l.latencyMs + bytes / l.bytesPerMs;
}

/** Time to move `bytes` between device and host (OFFLOAD / RELOAD). */
export function hostTransferMs(cost: CostCluster, bytes: number): number {
  if (cost.kind === 'ideal') return 0;
  return HOST_LINK.latencyMs + bytes / HOST_LINK.bytesPerMs;
}

/**
 * GPU ↔ host copies (OFFLOAD / RELOAD): the cluster schema has no host link, so a PCIe Gen4 x16
 * link's sustained ~25 GB/s per direction and 10 µs stand for it (Gen5 on H100 doubles the
 * bandwidth; this is the conservative side).
 */
export const HOST_LINK: Link = { bytesPerMs: 25e6, latencyMs: 0.01 };

/** How a collective's members sit on the nodes: members, nodes spanned, fewest members on one node. */
export interface GroupSpan {
  n: number;
  nodes: number;
  /** The fewest members any spanned node holds: that node's NICs carry its share of the traffic. */
  perNode: number;
}

/** Members counted per node (device ÷ GPUs per node). */
export function groupSpan(cost: CostCluster & { kind: 'custom' }, devices: readonly number[]): GroupSpan {
  const count = new Map<number, number>();
  for (const d of devices) {
    const node = Math.floor(d / cost.gpusPerNode);
    count.set(node, (count.get(node) ?? 0) + 1);
  }
  let perNode = Number.POSITIVE_INFINITY;
  for (const c of count.values()) perNode = Math.min(perNode, c);
  return { n: devices.length, nodes: count.size, perNode: count.size === 0 ? 0 : perNode };
}

/**
 * The link a ring collective (all-reduce, reduce-scatter, all-gather) runs at: its bus bandwidth.
 * Inside one node, NVLink. Across nodes NCCL runs one ring channel per NIC (a DGX H100 has one
 * 400 Gb/s NIC per GPU), so each node sends and receives through all the NICs its g members own:
 * the ring's inter-node hop runs at g × the per-GPU inter-node bandwidth, and every member still
 * moves its 2(n−1)/n share over NVLink; the slower of the two bounds the ring. Latency: the
 * larger of the two links' (the ring's inter-node hops).
 */
export function ringLink(cost: CostCluster & { kind: 'custom' }, span: GroupSpan): Link {
  if (span.nodes <= 1) return cost.intraNode;
  const nics = span.perNode * cost.interNode.bytesPerMs;
  const bytesPerMs = span.perNode > 1 ? Math.min(cost.intraNode.bytesPerMs, nics) : nics;
  return { bytesPerMs, latencyMs: Math.max(cost.intraNode.latencyMs, cost.interNode.latencyMs) };
}

/**
 * All-to-all across nodes: of the `bytes` a member sends, (g−1)/n stay on its node (NVLink) and
 * (n−g)/n leave it through its own NIC; the two run at once, so the slower bounds the exchange.
 * g is the fewest members on one node (the node whose members send the most off-node).
 */
export function spannedAllToAllMs(
  cost: CostCluster & { kind: 'custom' },
  span: GroupSpan,
  bytes: number,
): number {
  const { n, perNode: g } = span;
  if (n <= 1) return 0;
  if (span.nodes <= 1) return allToAllMs(n, bytes, cost.intraNode);
  const intra = (((g - 1) / n) * bytes) / cost.intraNode.bytesPerMs;
  const inter = (((n - g) / n) * bytes) / cost.interNode.bytesPerMs;
  return Math.max(intra, inter) + (n - 1) * Math.max(cost.intraNode.latencyMs, cost.interNode.latencyMs);
}

/** Ring all-reduce: 2(n−1)/n · bytes/bw + 2(n−1)·α. */
export function allReduceMs(n: number, bytes: number, l: Link): number {
  return n <= 1 ? 0 : ((2 * (n - 1)) / n) * (bytes / l.bytesPerMs) + 2 * (n - 1) * l.latencyMs;
}

/** Ring reduce-scatter: (n−1)/n · bytes/bw + (n−1)·α. `bytes` is the full (unsharded) buffer. */
export function reduceScatterMs(n: number, bytes: number, l: Link): number {
  return n <= 1 ? 0 : ((n - 1) / n) * (bytes / l.bytesPerMs) + (n - 1) * l.latencyMs;
}

/** Ring all-gather: (n−1)/n · bytes/bw + (n−1)·α. `bytes` is the full (gathered) buffer. */
export function allGatherMs(n: number, bytes: number, l: Link): number {
  return n <= 1 ? 0 : ((n - 1) / n) * (bytes / l.bytesPerMs) + (n - 1) * l.latencyMs;
}

/** Pairwise all-to-all: (n−1)/n · bytes/bw + (n−1)·α. `bytes` is what one rank sends in total. */
export function allToAllMs(n: number, bytes: number, l: Link): number {
  return n <= 1 ? 0 : ((n - 1) / n) * (bytes / l.bytesPerMs) + (n - 1) * l.latencyMs;
}

/** Duration of a collective over `devices` once every member has reached it (ideal cluster: 0). */
export function collectiveMs(
  cost: CostCluster,
  op: CollectiveOp,
  devices: readonly number[],
  bytes: number,
): number {
  if (cost.kind === 'ideal') return 0;
  return collectiveSpanMs(cost, op, groupSpan(cost, devices), bytes);
}

/**
 * A collective over members placed as `span` says: on a preset, as NCCL's own model picks its
 * algorithm and protocol (ncclTuning.ts); on a custom cluster, the alpha-beta ring formulas above.
 */
export function collectiveSpanMs(
  cost: CostCluster & { kind: 'custom' },
  op: CollectiveOp,
  span: GroupSpan,
  bytes: number,
): number {
  const n = span.n;
  if (op === 'ALL_TO_ALL') return spannedAllToAllMs(cost, span, bytes);
  if (n <= 1) return 0;
  const ring = ringLink(cost, span);
  if (cost.nccl) return ncclChoice(cost.nccl, op, span, ring.bytesPerMs, bytes).ms;
  switch (op) {
    case 'ALL_REDUCE':
      return allReduceMs(n, bytes, ring);
    case 'REDUCE_SCATTER':
      return reduceScatterMs(n, bytes, ring);
    case 'ALL_GATHER':
      return allGatherMs(n, bytes, ring);
  }
}
