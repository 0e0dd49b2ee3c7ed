/**
 * The design rewritten with what was measured: its model becomes an explicit chain of blocks whose
 * F, BI, BW, F&B and optimizer times are the fitted ones (blocks nobody measured keep the cost
 * model's prediction), FLOPs and bytes kept so MFU and memory still read right; the cluster's
 * point-to-point link takes the fitted latency and bandwidth. The description records where each
 * number came from.
 */
import type { Cluster, Design, SyntheticBlock } from '@stagecraft/ir';
import { lowerModel } from '@stagecraft/passes';
import type { CostFits } from './fitCosts.ts';
import type { PredictedCosts } from './predictedCosts.ts';

export interface CalibrationOrigin {
  /** The trace files, as the user named them. */
  files: readonly string[];
  /** What wrote them. */
  sources: readonly string[];
}

export interface CalibratedDesign {
  design: Design;
  /** Blocks whose costs stay predicted (no span measured them). */
  unmeasured: string[];
  /** Fits that the cluster's kind cannot carry, said to the user. */
  notes: string[];
}

export function calibratedDesign(
  design: Design,
  fits: CostFits,
  predicted: readonly (PredictedCosts | undefined)[],
  tensorParallel: ReadonlyMap<number, number>,
  origin: CalibrationOrigin,
): CalibratedDesign {
  const lowered = lowerModel(design.model);
  const unmeasured: string[] = [];
  const notes: string[] = [];
  const blocks: SyntheticBlock[] = lowered.map((b, i) => {
    const fit = fits.blocks[i];
    const p = predicted[i] ?? {};
    // Measured on one shard of a tensor-parallel block: the compiler divides by the shard count again.
    const n = tensorParallel.get(i) ?? 1;
    const F = fit?.F?.ms ?? p.F ?? 0;
    let BI = fit?.BI?.ms ?? p.BI;
    let BW = fit?.BW?.ms ?? p.BW;
    const fused = fit?.B?.ms;
    if (fused !== undefined && (fit?.BI === undefined || fit?.BW === undefined)) {
      // Only the fused backward was measured: split it as the model splits BI from BW.
      const bi = p.BI ?? 0;
      const bw = p.BW ?? 0;
      const share = p.inputGradShare ?? (bi + bw > 0 ? bi / (bi + bw) : 0.5);
      BI = fused * share;
      BW = fused * (1 - share);
    }
    BI ??= p.B !== undefined ? p.B / 2 : 0;
    BW ??= p.B !== undefined ? p.B / 2 : 0;
    if (!fit?.F && !fit?.BI && !fit?.BW && !fit?.B) unmeasured.push(b.name);
    const ratio = fits.overlapFactor?.ms ?? p.overlapRatio ?? 1;
    const UPD = fit?.UPD?.ms ?? p.UPD ?? 0;
    const out: SyntheticBlock = {
      name: b.name,
      tags: { ...b.tags },
      F: ns(F * n),
      BI: ns(BI * n),
      BW: ns(BW * n),
      FandB: ns(ratio * (F + BI + BW) * n),
      UPD: ns(UPD * n),
      activationBytes: b.activationBytes,
      paramBytes: b.paramBytes,
      outputBytes: b.outputBytes,
    };
    if (b.flops) out.flops = { ...b.flops };
    if (b.recomputeActivationBytes !== undefined) out.recomputeActivationBytes = b.recomputeActivationBytes;
    if (b.experts !== undefined) out.experts = b.experts;
    if (b.topK !== undefined) out.topK = b.topK;
    return out;
  });
  const tokens = lowered[0]?.tokens;
  const model =
    tokens !== undefined
      ? { kind: 'synthetic' as const, blocks, tokensPerMicrobatch: tokens }
      : { kind: 'synthetic' as const, blocks };

  const cluster = withDispatch(calibratedCluster(design.cluster, fits, notes), fits);
  const described = describe(fits, origin, unmeasured.length, lowered.length);
  return {
    design: {
      ...design,
      name: `${design.name ?? 'untitled'} (calibrated)`,
      description: design.description ? `${design.description}\n\n${described}` : described,
      model,
      cluster,
    },
    unmeasured,
    notes,
  };
}

/**
 * The runtime's per-instruction dispatch time, on any kind of cluster (it is the runtime's, not
 * the links'); a fit of 0 leaves the cluster as it was.
 */
function withDispatch(cluster: Cluster, fits: CostFits): Cluster {
  const ms = fits.dispatch ? ns(fits.dispatch.ms) : 0;
  return ms > 0 ? { ...cluster, dispatchMs: ms } : cluster;
}

function calibratedCluster(cluster: Cluster, fits: CostFits, notes: string[]): Cluster {
  const link = fits.p2p;
  if (!link) return cluster;
  if (cluster.kind === 'ideal') {
    // The ideal cluster has one knob for transfers, a fixed time each: the fitted time of the
    // median transfer.
    const ms =
      link.latencyUs / 1e3 +
      (Number.isFinite(link.bandwidthGBps) ? link.medianBytes / (link.bandwidthGBps * 1e6) : 0);
    return { ...cluster, p2pLatencyMs: round(ms) };
  }
  if (cluster.kind === 'custom') {
    if (!link.separable) {
      notes.push(
        'every transfer had the same size: the link keeps its bandwidth, its latency is the measured time',
      );
      const intra = { ...cluster.intraNode, latencyUs: round(link.latencyUs) };
      return { ...cluster, intraNode: intra, interNode: cluster.nodes > 1 ? cluster.interNode : intra };
    }
    const measured = { bandwidthGBps: round(link.bandwidthGBps), latencyUs: round(link.latencyUs) };
    return { ...cluster, intraNode: measured, interNode: cluster.nodes > 1 ? cluster.interNode : measured };
  }
  notes.push(
    `the cluster is the "${cluster.preset}" preset: its links stay as published; the measured point-to-point link (${round(link.latencyUs)} µs, ${round(link.bandwidthGBps)} GB/s) is reported only`,
  );
  return cluster;
}

function describe(fits: CostFits, origin: CalibrationOrigin, unmeasured: number, total: number): string {
  const parts = [
    `Calibrated from ${origin.files.join(', ')} (${origin.sources.join(', ')}; steps ${fits.steps.join(', ')} of the trace)`,
    `${total - unmeasured} of ${total} blocks' compute times measured (medians)`,
  ];
  if (fits.overlapFactor) parts.push(`F&B overlap factor ${round(fits.overlapFactor.ms)}`);
  if (fits.p2p)
    parts.push(`point-to-point ${round(fits.p2p.latencyUs)} µs latency over ${fits.p2p.samples} transfers`);
  if (fits.dispatch)
    parts.push(
      `dispatch ${round(fits.dispatch.ms * 1e3)} µs per instruction (${fits.dispatch.samples} gaps between ops)`,
    );
  return `${parts.join('; ')}.`;
}

/** Milliseconds kept to the nanosecond: finer is noise in any trace. */
const ns = (ms: number) => Math.round(ms * 1e6) / 1e6;

const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : x);
