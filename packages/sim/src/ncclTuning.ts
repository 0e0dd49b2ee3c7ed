/**
 * Collectives on a preset cluster timed as NCCL itself predicts them before it picks an algorithm
 * and a protocol: for each candidate, a latency (a base plus a per-step latency of each hop the
 * algorithm crosses) plus the bytes at that candidate's bandwidth, and the fastest one wins. That
 * is what shapes nccl-tests' curves: small messages are latency-bound on LL, medium ones on LL128,
 * large ones reach the link's bus bandwidth on Simple (or on NVLink SHARP inside an H100 node).
 *
 * Every constant is NCCL's own (NVIDIA/nccl, src/graph/tuning.cc of NCCL 2.23: `baseLat`, `hwLat`,
 * `llMaxBws`, the protocol factors and `getNetOverhead`), except the bus bandwidths, which are the
 * presets' measured nccl-tests figures (docs/cost-model.md, "Clusters"). Sources in
 * docs/cost-model.md, "Collectives as NCCL times them".
 */
import type { CollectiveOp, GroupSpan } from './costModel.ts';

/** What NCCL's model needs of a node type beyond its links' bandwidth. */
export interface NcclProfile {
  /** nccl-tests busBw of an all-reduce by NVLink SHARP inside one node, GB/s; undefined: no NVLS. */
  nvlsBusGBps?: number;
  /** The LL protocol's bus-bandwidth ceiling, GB/s, on 1, 2 and ≥ 4 nodes (tuning.cc `llMaxBws`). */
  llMaxBusGBps: readonly [number, number, number];
  /** NCCL's network post overhead per ring step across nodes, µs (tuning.cc `getNetOverhead`). */
  netOverheadUs: number;
}

/**
 * The presets' profiles. DGX A100 has two AMD EPYC 7742 CPUs, DGX H100 and H200 two Intel Xeon
 * Platinum 8480C (DGX user guides): NCCL picks its multi-node LL ceiling and its network overhead by
 * CPU vendor. NVLS: H100/H200 NVSwitch all-reduce, ~480 GB/s busBw on 8 GPUs (S. Jeaugey, NVIDIA,
 * NVIDIA/nccl-tests#212); A100's NVSwitch has no SHARP.
 */
export const NCCL_PROFILES: Readonly<Record<string, NcclProfile>> = {
  'dgx-a100': { llMaxBusGBps: [87.7, 22.5, 19.0], netOverheadUs: 2 },
  'dgx-h100': { nvlsBusGBps: 480, llMaxBusGBps: [141.0, 39.0, 20.4], netOverheadUs: 1 },
  'dgx-h200': { nvlsBusGBps: 480, llMaxBusGBps: [141.0, 39.0, 20.4], netOverheadUs: 1 },
};

/** NCCL's three protocols, in tuning.cc's order. */
const LL = 0;
const LL128 = 1;
const SIMPLE = 2;
const PROTOCOLS = [LL, LL128, SIMPLE] as const;

/** tuning.cc `baseLat`, µs, per protocol (LL, LL128, Simple). */
const BASE_LAT = { ring: [6.6, 14.0, 8.4], tree: [6.8, 14.0, 8.4] } as const;
/** tuning.cc `hwLat`, µs per step, per protocol: NVLink and network hops of rings and trees. */
const HW_LAT = {
  nvlinkRing: [0.6, 1.9, 3.4],
  nvlinkTree: [0.6, 1.25, 4.0],
  netRing: [2.7, 4.0, 14.0],
  netTree: [5.0, 8.5, 14.0],
} as const;
/** tuning.cc: an NVLS all-reduce's latency is its NVLink hop, 25 µs (Simple only). */
const NVLS_LAT_US = 25;
/** tuning.cc's protocol factors on the ring's bus bandwidth: LL halves it, LL128 keeps 120/128-ish. */
const RING_LL_FACTOR = 0.5;
const RING_LL128_FACTOR = 0.92;
/** Tree all-reduce: 0.92 of the bus bandwidth; LL 1/3.8 of that, LL128 120/128 across nodes. */
const TREE_FACTOR = 0.92;
const TREE_LL_FACTOR = 1 / 3.8;
const TREE_LL128_FACTOR = 120 / 128;
/** PAT (all-gather and reduce-scatter with one GPU per node): 0.75 of the bus bandwidth. */
const PAT_FACTOR = 0.75;

/** One candidate NCCL weighs: which algorithm and protocol, and the time it predicts. */
export interface NcclChoice {
  algorithm: 'ring' | 'tree' | 'nvls' | 'pat';
  protocol: 'LL' | 'LL128' | 'Simple';
  ms: number;
}

const PROTOCOL_NAMES = ['LL', 'LL128', 'Simple'] as const;

/**
 * The fastest of NCCL's candidates for a ring-family collective (all-reduce, reduce-scatter,
 * all-gather) of `bytes` over `span`, ring bus bandwidth `busBytesPerMs` (the ring link of
 * costModel.ts: NVLink inside a node, the members' NICs across nodes).
 */
export function ncclChoice(
  profile: NcclProfile,
  op: Exclude<CollectiveOp, 'ALL_TO_ALL'>,
  span: GroupSpan,
  busBytesPerMs: number,
  bytes: number,
): NcclChoice {
  const { n, nodes, perNode: g } = span;
  const allReduce = op === 'ALL_REDUCE';
  // nccl-tests' bus-bandwidth factor: algBw = busBw · n / (2(n−1)) for all-reduce, n / (n−1) else.
  const busFactor = allReduce ? (2 * (n - 1)) / n : (n - 1) / n;
  const steps = allReduce ? 2 * (n - 1) : n - 1;
  const interSteps = nodes <= 1 ? 0 : allReduce ? 2 * (nodes - 1) : nodes - 1;
  const llMax = profile.llMaxBusGBps[nodes <= 1 ? 0 : nodes === 2 ? 1 : 2] * 1e6;
  let best: NcclChoice = { algorithm: 'ring', protocol: 'Simple', ms: Number.POSITIVE_INFINITY };
  const consider = (
    algorithm: NcclChoice['algorithm'],
    p: number,
    latUs: number,
    algBytes: number,
    bw: number,
  ) => {
    const ms = latUs * 1e-3 + algBytes / bw;
    if (ms < best.ms) best = { algorithm, protocol: PROTOCOL_NAMES[p]!, ms };
  };
  for (const p of PROTOCOLS) {
    // Ring: every step crosses a hop, the inter-node ones at the network's latency.
    const ringBw =
      p === LL
        ? Math.min(llMax, busBytesPerMs * RING_LL_FACTOR)
        : p === LL128
          ? busBytesPerMs * RING_LL128_FACTOR
          : busBytesPerMs;
    const netPost = nodes > 1 ? profile.netOverheadUs * (p === SIMPLE ? 3 : 1) : 0;
    const intraLat = Math.max(HW_LAT.nvlinkRing[p]!, netPost);
    // With one GPU per node every hop is exposed: NCCL charges the tree's network latency.
    const interLat = g === 1 ? HW_LAT.netTree[p]! : HW_LAT.netRing[p]!;
    const ringLat = BASE_LAT.ring[p]! + (steps - interSteps) * intraLat + interSteps * interLat;
    consider('ring', p, ringLat, busFactor * bytes, ringBw);
    if (allReduce && nodes > 1) {
      // Double binary tree: up and down a chain inside each node and log2(nodes) network levels.
      const tree = busBytesPerMs * TREE_FACTOR;
      const treeBw =
        p === LL ? Math.min(tree * TREE_LL_FACTOR, llMax) : p === LL128 ? tree * TREE_LL128_FACTOR : tree;
      const treeLat =
        BASE_LAT.tree[p]! +
        2 * ((g - 1) * HW_LAT.nvlinkTree[p]! + Math.floor(Math.log2(nodes)) * HW_LAT.netTree[p]!);
      // A tree's algorithm bandwidth is half its bus bandwidth (tuning.cc's ratio .5).
      consider('tree', p, treeLat, 2 * bytes, treeBw);
    }
    if (!allReduce && nodes > 1 && g === 1 && p === SIMPLE) {
      const patLat = 8 + Math.floor(Math.log2(nodes)) * (HW_LAT.netTree[p]! / 3.5) + n * 2.8;
      consider('pat', p, patLat, busFactor * bytes, busBytesPerMs * PAT_FACTOR);
    }
  }
  if (allReduce && nodes <= 1 && profile.nvlsBusGBps !== undefined)
    consider('nvls', SIMPLE, NVLS_LAT_US, busFactor * bytes, profile.nvlsBusGBps * 1e6);
  return best;
}
